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






T = TypeVar("T", bound="JobView")



@_attrs_define
class JobView:
    """ A job as its owner sees it.

        Attributes:
            attempts (int): Attempts so far (a job is retried after passing failures).
            cancel_requested (bool): Whether cancellation was asked for; it stays true once the job is cancelled.
            created_at (datetime.datetime):
            id (str): `job_...`
            kind (str): What the job does, e.g. `dem.process`.
            progress (int): 0 to 100.
            status (str): `queued`, `running`, `succeeded`, `failed` or `cancelled`.
            updated_at (datetime.datetime):
            error (Any | Unset): The failure, as a problem document.
            finished_at (datetime.datetime | None | Unset):
            output (Any | Unset): What the job produced.
            started_at (datetime.datetime | None | Unset):
     """

    attempts: int
    cancel_requested: bool
    created_at: datetime.datetime
    id: str
    kind: str
    progress: int
    status: str
    updated_at: datetime.datetime
    error: Any | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    output: Any | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        id = self.id

        kind = self.kind

        progress = self.progress

        status = self.status

        updated_at = self.updated_at.isoformat()

        error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        output = self.output

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "cancel_requested": cancel_requested,
            "created_at": created_at,
            "id": id,
            "kind": kind,
            "progress": progress,
            "status": status,
            "updated_at": updated_at,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if output is not UNSET:
            field_dict["output"] = output
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        cancel_requested = d.pop("cancel_requested")

        created_at = _isoparse(d.pop("created_at"))




        id = d.pop("id")

        kind = d.pop("kind")

        progress = d.pop("progress")

        status = d.pop("status")

        updated_at = _isoparse(d.pop("updated_at"))




        error = d.pop("error", UNSET)

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_1 = _isoparse(data)



                return finished_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))


        output = d.pop("output", UNSET)

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_1 = _isoparse(data)



                return started_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))


        job_view = cls(
            attempts=attempts,
            cancel_requested=cancel_requested,
            created_at=created_at,
            id=id,
            kind=kind,
            progress=progress,
            status=status,
            updated_at=updated_at,
            error=error,
            finished_at=finished_at,
            output=output,
            started_at=started_at,
        )


        job_view.additional_properties = d
        return job_view

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
