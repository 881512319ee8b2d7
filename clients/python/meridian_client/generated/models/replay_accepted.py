from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="ReplayAccepted")



@_attrs_define
class ReplayAccepted:
    """ Answer of a replay.

        Attributes:
            replayed (int): Deliveries queued.
            next_since (datetime.datetime | None | Unset):
     """

    replayed: int
    next_since: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        replayed = self.replayed

        next_since: None | str | Unset
        if isinstance(self.next_since, Unset):
            next_since = UNSET
        elif isinstance(self.next_since, datetime.datetime):
            next_since = self.next_since.isoformat()
        else:
            next_since = self.next_since


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "replayed": replayed,
        })
        if next_since is not UNSET:
            field_dict["next_since"] = next_since

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        replayed = d.pop("replayed")

        def _parse_next_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_since_type_1 = _isoparse(data)



                return next_since_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        next_since = _parse_next_since(d.pop("next_since", UNSET))


        replay_accepted = cls(
            replayed=replayed,
            next_since=next_since,
        )


        replay_accepted.additional_properties = d
        return replay_accepted

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
