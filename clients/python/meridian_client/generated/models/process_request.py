from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.process_request_params import ProcessRequestParams
  from ..models.process_request_source import ProcessRequestSource





T = TypeVar("T", bound="ProcessRequest")



@_attrs_define
class ProcessRequest:
    """ A processing request on an earlier upload or result.

        Example:
            {'params': {'operations': [{'type': 'hillshade'}, {'type': 'slope'}]}, 'source': {'dataset_id':
                'dataset_01m80pxqn5wq755fvheh5647jw'}}

        Attributes:
            params (ProcessRequestParams): `{"operations": [{"type": "slope", "format": "percent"}, ...]}`.
            source (ProcessRequestSource): `{"dataset_id": "dataset_..."}`, or `{"job_id": "job_...", "operation":
                "hillshade"}` for an
                earlier job's raster output.
     """

    params: ProcessRequestParams
    source: ProcessRequestSource
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.process_request_params import ProcessRequestParams # noqa: PLC0415
        from ..models.process_request_source import ProcessRequestSource # noqa: PLC0415
        params = self.params.to_dict()

        source = self.source.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "params": params,
            "source": source,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.process_request_params import ProcessRequestParams # noqa: PLC0415
        from ..models.process_request_source import ProcessRequestSource # noqa: PLC0415
        d = dict(src_dict)
        params = ProcessRequestParams.from_dict(d.pop("params"))




        source = ProcessRequestSource.from_dict(d.pop("source"))




        process_request = cls(
            params=params,
            source=source,
        )


        process_request.additional_properties = d
        return process_request

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
