from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateSubscription")



@_attrs_define
class CreateSubscription:
    """ Body of subscription creation.

        Example:
            {'description': 'ops', 'events': ['dns.*', 'cadastre.parcel.registered'], 'url':
                'https://hooks.example.com/meridian'}

        Attributes:
            events (list[str]): Event types (`dns.record.created`), wildcards (`dns.*`, `dns.record.*`) or `*`.
            url (str): An `https://` endpoint on the public internet.
            description (None | str | Unset): A note for people, at most 500 characters.
     """

    events: list[str]
    url: str
    description: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        events = self.events



        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = cast(list[str], d.pop("events"))


        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        description = _parse_description(d.pop("description", UNSET))


        create_subscription = cls(
            events=events,
            url=url,
            description=description,
        )

        return create_subscription

