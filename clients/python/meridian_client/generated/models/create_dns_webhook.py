from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateDnsWebhook")



@_attrs_define
class CreateDnsWebhook:
    """ Body of a DNS webhook registration.

        Example:
            {'url': 'https://hooks.example.com/dns'}

        Attributes:
            url (str): An `https://` endpoint on the public internet.
            description (None | str | Unset):
            events (list[str] | None | Unset): DNS event types or wildcards (`dns.record.*`); every DNS event (`dns.*`) when
                absent.
     """

    url: str
    description: None | str | Unset = UNSET
    events: list[str] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        events: list[str] | None | Unset
        if isinstance(self.events, Unset):
            events = UNSET
        elif isinstance(self.events, list):
            events = self.events


        else:
            events = self.events


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if events is not UNSET:
            field_dict["events"] = events

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_events(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = cast(list[str], data)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[str] | None | Unset", data)

        events = _parse_events(d.pop("events", UNSET))


        create_dns_webhook = cls(
            url=url,
            description=description,
            events=events,
        )

        return create_dns_webhook

