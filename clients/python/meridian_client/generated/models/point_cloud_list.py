from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.point_cloud_view import PointCloudView





T = TypeVar("T", bound="PointCloudList")



@_attrs_define
class PointCloudList:
    """ A page of point clouds.

        Attributes:
            point_clouds (list[PointCloudView]):
            total (int): All point clouds of the account.
     """

    point_clouds: list[PointCloudView]
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.point_cloud_view import PointCloudView # noqa: PLC0415
        point_clouds = []
        for point_clouds_item_data in self.point_clouds:
            point_clouds_item = point_clouds_item_data.to_dict()
            point_clouds.append(point_clouds_item)



        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "point_clouds": point_clouds,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.point_cloud_view import PointCloudView # noqa: PLC0415
        d = dict(src_dict)
        point_clouds = []
        _point_clouds = d.pop("point_clouds")
        for point_clouds_item_data in (_point_clouds):
            point_clouds_item = PointCloudView.from_dict(point_clouds_item_data)



            point_clouds.append(point_clouds_item)


        total = d.pop("total")

        point_cloud_list = cls(
            point_clouds=point_clouds,
            total=total,
        )


        point_cloud_list.additional_properties = d
        return point_cloud_list

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
