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

if TYPE_CHECKING:
  from ..models.dem_job_view_error_type_0 import DemJobViewErrorType0
  from ..models.dem_job_view_operations_item import DemJobViewOperationsItem
  from ..models.dem_job_view_source import DemJobViewSource
  from ..models.output_view import OutputView
  from ..models.tile_layer_view import TileLayerView





T = TypeVar("T", bound="DemJobView")



@_attrs_define
class DemJobView:
    """ A DEM processing job as its owner sees it.

        Attributes:
            cancel_requested (bool): Whether cancellation was asked for; it stays true once the job is cancelled.
            created_at (datetime.datetime):
            id (str): `job_...`
            operations (list[DemJobViewOperationsItem]): The operations with every option spelt out (defaults included).
            outputs (list[OutputView]): One per operation, once the job succeeded.
            progress (int): 0 to 100.
            source (DemJobViewSource): What the job reads: `{"dataset_id": ...}` or `{"job_id": ..., "operation": ...}`.
            status (str): `queued`, `running`, `succeeded`, `failed` or `cancelled`.
            tiles (list[TileLayerView]): Tile URL templates: the styles of the source DEM at once, each raster output once
                the job succeeded.
            updated_at (datetime.datetime):
            error (DemJobViewErrorType0 | None | Unset): Why it failed, as a problem document.
            finished_at (datetime.datetime | None | Unset):
            started_at (datetime.datetime | None | Unset):
     """

    cancel_requested: bool
    created_at: datetime.datetime
    id: str
    operations: list[DemJobViewOperationsItem]
    outputs: list[OutputView]
    progress: int
    source: DemJobViewSource
    status: str
    tiles: list[TileLayerView]
    updated_at: datetime.datetime
    error: DemJobViewErrorType0 | None | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.dem_job_view_error_type_0 import DemJobViewErrorType0 # noqa: PLC0415
        from ..models.dem_job_view_operations_item import DemJobViewOperationsItem # noqa: PLC0415
        from ..models.dem_job_view_source import DemJobViewSource # noqa: PLC0415
        from ..models.output_view import OutputView # noqa: PLC0415
        from ..models.tile_layer_view import TileLayerView # noqa: PLC0415
        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        id = self.id

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.to_dict()
            operations.append(operations_item)



        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.to_dict()
            outputs.append(outputs_item)



        progress = self.progress

        source = self.source.to_dict()

        status = self.status

        tiles = []
        for tiles_item_data in self.tiles:
            tiles_item = tiles_item_data.to_dict()
            tiles.append(tiles_item)



        updated_at = self.updated_at.isoformat()

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, DemJobViewErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

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
            "cancel_requested": cancel_requested,
            "created_at": created_at,
            "id": id,
            "operations": operations,
            "outputs": outputs,
            "progress": progress,
            "source": source,
            "status": status,
            "tiles": tiles,
            "updated_at": updated_at,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dem_job_view_error_type_0 import DemJobViewErrorType0 # noqa: PLC0415
        from ..models.dem_job_view_operations_item import DemJobViewOperationsItem # noqa: PLC0415
        from ..models.dem_job_view_source import DemJobViewSource # noqa: PLC0415
        from ..models.output_view import OutputView # noqa: PLC0415
        from ..models.tile_layer_view import TileLayerView # noqa: PLC0415
        d = dict(src_dict)
        cancel_requested = d.pop("cancel_requested")

        created_at = _isoparse(d.pop("created_at"))




        id = d.pop("id")

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            operations_item = DemJobViewOperationsItem.from_dict(operations_item_data)



            operations.append(operations_item)


        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in (_outputs):
            outputs_item = OutputView.from_dict(outputs_item_data)



            outputs.append(outputs_item)


        progress = d.pop("progress")

        source = DemJobViewSource.from_dict(d.pop("source"))




        status = d.pop("status")

        tiles = []
        _tiles = d.pop("tiles")
        for tiles_item_data in (_tiles):
            tiles_item = TileLayerView.from_dict(tiles_item_data)



            tiles.append(tiles_item)


        updated_at = _isoparse(d.pop("updated_at"))




        def _parse_error(data: object) -> DemJobViewErrorType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = DemJobViewErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("DemJobViewErrorType0 | None | Unset", data)

        error = _parse_error(d.pop("error", UNSET))


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


        dem_job_view = cls(
            cancel_requested=cancel_requested,
            created_at=created_at,
            id=id,
            operations=operations,
            outputs=outputs,
            progress=progress,
            source=source,
            status=status,
            tiles=tiles,
            updated_at=updated_at,
            error=error,
            finished_at=finished_at,
            started_at=started_at,
        )


        dem_job_view.additional_properties = d
        return dem_job_view

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
