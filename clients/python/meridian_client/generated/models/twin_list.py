from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.twin_view import TwinView





T = TypeVar("T", bound="TwinList")



@_attrs_define
class TwinList:
    """ A page of twins.

        Attributes:
            total (int): All twins of the account.
            twins (list[TwinView]):
     """

    total: int
    twins: list[TwinView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.twin_view import TwinView # noqa: PLC0415
        total = self.total

        twins = []
        for twins_item_data in self.twins:
            twins_item = twins_item_data.to_dict()
            twins.append(twins_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "total": total,
            "twins": twins,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.twin_view import TwinView # noqa: PLC0415
        d = dict(src_dict)
        total = d.pop("total")

        twins = []
        _twins = d.pop("twins")
        for twins_item_data in (_twins):
            twins_item = TwinView.from_dict(twins_item_data)



            twins.append(twins_item)


        twin_list = cls(
            total=total,
            twins=twins,
        )


        twin_list.additional_properties = d
        return twin_list

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
