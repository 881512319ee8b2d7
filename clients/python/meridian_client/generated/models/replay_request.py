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






T = TypeVar("T", bound="ReplayRequest")



@_attrs_define
class ReplayRequest:
    """ Body of a replay.

        Example:
            {'only_failed': False, 'since': '2026-01-01T00:00:00Z'}

        Attributes:
            since (datetime.datetime):
            only_failed (bool | Unset): Only events whose delivery to this subscription failed or was exhausted.
            until (datetime.datetime | None | Unset):
     """

    since: datetime.datetime
    only_failed: bool | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        since = self.since.isoformat()

        only_failed = self.only_failed

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "since": since,
        })
        if only_failed is not UNSET:
            field_dict["only_failed"] = only_failed
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        since = _isoparse(d.pop("since"))




        only_failed = d.pop("only_failed", UNSET)

        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_1 = _isoparse(data)



                return until_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        until = _parse_until(d.pop("until", UNSET))


        replay_request = cls(
            since=since,
            only_failed=only_failed,
            until=until,
        )

        return replay_request

