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
  from ..models.process_upload_params import ProcessUploadParams





T = TypeVar("T", bound="ProcessUpload")



@_attrs_define
class ProcessUpload:
    """ A processing request with a file: `multipart/form-data` with these parts.

        Example:
            {'params': '{"operations": [{"type": "hillshade"}]}'}

        Attributes:
            file (File): The DEM: a GeoTIFF (stripped or tiled; uncompressed, Deflate, LZW, PackBits or ZSTD).
            params (ProcessUploadParams): JSON: `{"operations": [{"type": "hillshade", ...}, ...]}`.
     """

    file: File
    params: ProcessUploadParams
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.process_upload_params import ProcessUploadParams # noqa: PLC0415
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
        from ..models.process_upload_params import ProcessUploadParams # noqa: PLC0415
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))



        files.append(("params", (None, json.dumps( self.params.to_dict()).encode(), "application/json")))




        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))



        return files


    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.process_upload_params import ProcessUploadParams # noqa: PLC0415
        d = dict(src_dict)
        file = File(
             payload = BytesIO(d.pop("file"))
        )




        params = ProcessUploadParams.from_dict(d.pop("params"))




        process_upload = cls(
            file=file,
            params=params,
        )


        process_upload.additional_properties = d
        return process_upload

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
