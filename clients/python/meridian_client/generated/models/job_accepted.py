from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_accepted_status import JobAcceptedStatus
from ..types import UNSET, Unset






T = TypeVar("T", bound="JobAccepted")



@_attrs_define
class JobAccepted:
    """ A job queued to do the work; follow `href` (also in `Location`) or wait on it

        Attributes:
            href (str):
            job (str): `job_...`
            status (JobAcceptedStatus):
            result (str | Unset): Where the result will be
     """

    href: str
    job: str
    status: JobAcceptedStatus
    result: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        href = self.href

        job = self.job

        status = self.status.value

        result = self.result


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "href": href,
            "job": job,
            "status": status,
        })
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        href = d.pop("href")

        job = d.pop("job")

        status = JobAcceptedStatus(d.pop("status"))




        result = d.pop("result", UNSET)

        job_accepted = cls(
            href=href,
            job=job,
            status=status,
            result=result,
        )


        job_accepted.additional_properties = d
        return job_accepted

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
