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






T = TypeVar("T", bound="AttemptView")



@_attrs_define
class AttemptView:
    """ One attempt to deliver.

        Attributes:
            attempted_at (datetime.datetime):
            latency_ms (int): Milliseconds from sending to the answer's headers.
            error (None | str | Unset): Why there was no answer (timeout, connection refused, TLS, refused by the SSRF
                guard).
            response_body (None | str | Unset): The first 2 KiB of the answer's body.
            status_code (int | None | Unset): The endpoint's HTTP status, when it answered.
     """

    attempted_at: datetime.datetime
    latency_ms: int
    error: None | str | Unset = UNSET
    response_body: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at.isoformat()

        latency_ms = self.latency_ms

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        response_body: None | str | Unset
        if isinstance(self.response_body, Unset):
            response_body = UNSET
        else:
            response_body = self.response_body

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempted_at": attempted_at,
            "latency_ms": latency_ms,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if response_body is not UNSET:
            field_dict["response_body"] = response_body
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempted_at = _isoparse(d.pop("attempted_at"))




        latency_ms = d.pop("latency_ms")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_response_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        response_body = _parse_response_body(d.pop("response_body", UNSET))


        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))


        attempt_view = cls(
            attempted_at=attempted_at,
            latency_ms=latency_ms,
            error=error,
            response_body=response_body,
            status_code=status_code,
        )


        attempt_view.additional_properties = d
        return attempt_view

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
