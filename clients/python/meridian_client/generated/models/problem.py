from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.field_error import FieldError





T = TypeVar("T", bound="Problem")



@_attrs_define
class Problem:
    """ An RFC 7807 problem document with Meridian's extensions `code`, `errors` and `request_id`.

        Attributes:
            code (str): Stable machine-readable code, e.g. `validation_failed`.
            detail (str): What happened on this occasion.
            errors (list[FieldError]): One entry per invalid field.
            status (int): The HTTP status code.
            title (str): Short summary of the kind of problem.
            type_ (str): A URI reference naming the kind of problem; `/docs/problems#<code>` explains it.
            request_id (None | str | Unset): The request's identifier, as echoed in `X-Request-Id`.
     """

    code: str
    detail: str
    errors: list[FieldError]
    status: int
    title: str
    type_: str
    request_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.field_error import FieldError # noqa: PLC0415
        code = self.code

        detail = self.detail

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)



        status = self.status

        title = self.title

        type_ = self.type_

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "detail": detail,
            "errors": errors,
            "status": status,
            "title": title,
            "type": type_,
        })
        if request_id is not UNSET:
            field_dict["request_id"] = request_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_error import FieldError # noqa: PLC0415
        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in (_errors):
            errors_item = FieldError.from_dict(errors_item_data)



            errors.append(errors_item)


        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))


        problem = cls(
            code=code,
            detail=detail,
            errors=errors,
            status=status,
            title=title,
            type_=type_,
            request_id=request_id,
        )


        problem.additional_properties = d
        return problem

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
