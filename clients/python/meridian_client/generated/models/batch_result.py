from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.deleted import Deleted
  from ..models.record_view import RecordView





T = TypeVar("T", bound="BatchResult")



@_attrs_define
class BatchResult:
    """ What a batch did.

        Attributes:
            created (list[RecordView]):
            deleted (list[Deleted]):
            records (int): The zone's record count after the batch.
            soa_serial (int): The zone's serial after the batch (one bump for the whole batch).
            updated (list[RecordView]):
     """

    created: list[RecordView]
    deleted: list[Deleted]
    records: int
    soa_serial: int
    updated: list[RecordView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.deleted import Deleted # noqa: PLC0415
        from ..models.record_view import RecordView # noqa: PLC0415
        created = []
        for created_item_data in self.created:
            created_item = created_item_data.to_dict()
            created.append(created_item)



        deleted = []
        for deleted_item_data in self.deleted:
            deleted_item = deleted_item_data.to_dict()
            deleted.append(deleted_item)



        records = self.records

        soa_serial = self.soa_serial

        updated = []
        for updated_item_data in self.updated:
            updated_item = updated_item_data.to_dict()
            updated.append(updated_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created": created,
            "deleted": deleted,
            "records": records,
            "soa_serial": soa_serial,
            "updated": updated,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deleted import Deleted # noqa: PLC0415
        from ..models.record_view import RecordView # noqa: PLC0415
        d = dict(src_dict)
        created = []
        _created = d.pop("created")
        for created_item_data in (_created):
            created_item = RecordView.from_dict(created_item_data)



            created.append(created_item)


        deleted = []
        _deleted = d.pop("deleted")
        for deleted_item_data in (_deleted):
            deleted_item = Deleted.from_dict(deleted_item_data)



            deleted.append(deleted_item)


        records = d.pop("records")

        soa_serial = d.pop("soa_serial")

        updated = []
        _updated = d.pop("updated")
        for updated_item_data in (_updated):
            updated_item = RecordView.from_dict(updated_item_data)



            updated.append(updated_item)


        batch_result = cls(
            created=created,
            deleted=deleted,
            records=records,
            soa_serial=soa_serial,
            updated=updated,
        )


        batch_result.additional_properties = d
        return batch_result

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
