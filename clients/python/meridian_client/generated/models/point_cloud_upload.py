from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field
import json
from .. import types

from ..types import UNSET, Unset

from ..types import File, FileTypes
from io import BytesIO
from typing import cast

if TYPE_CHECKING:
  from ..models.point_cloud_upload_params import PointCloudUploadParams





T = TypeVar("T", bound="PointCloudUpload")



@_attrs_define
class PointCloudUpload:
    """ An upload as `multipart/form-data`.

        Example:
            {'params': '{"name": "survey-2026"}'}

        Attributes:
            file (File): The LAS or LAZ file.
            params (PointCloudUploadParams): JSON: `{"name": "...", "crs": 2154}` (both optional; `crs` overrides the file's
                CRS and is
                written into every download but the original as uploaded).
     """

    file: File
    params: PointCloudUploadParams
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.point_cloud_upload_params import PointCloudUploadParams # noqa: PLC0415
        file = self.file.to_tuple()


        params = self.params.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "file": file,
            "params": params,
        })

        return field_dict


    def to_multipart(self) -> types.RequestFiles:
        from ..models.point_cloud_upload_params import PointCloudUploadParams # noqa: PLC0415
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))



        files.append(("params", (None, json.dumps( self.params.to_dict()).encode(), "application/json")))




        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))



        return files


    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.point_cloud_upload_params import PointCloudUploadParams # noqa: PLC0415
        d = dict(src_dict)
        file = File(
             payload = BytesIO(d.pop("file"))
        )




        params = PointCloudUploadParams.from_dict(d.pop("params"))




        point_cloud_upload = cls(
            file=file,
            params=params,
        )


        point_cloud_upload.additional_properties = d
        return point_cloud_upload

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
