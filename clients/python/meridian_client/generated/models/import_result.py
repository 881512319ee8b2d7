from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.record_view import RecordView
  from ..models.skipped_line import SkippedLine





T = TypeVar("T", bound="ImportResult")



@_attrs_define
class ImportResult:
    """ What an import did.

        Attributes:
            added (list[RecordView]): The records added (all in one transaction).
            records (int): The zone's record count afterwards.
            skipped (list[SkippedLine]): Lines not imported, with the reason.
            soa_serial (int): The zone's serial afterwards.
     """

    added: list[RecordView]
    records: int
    skipped: list[SkippedLine]
    soa_serial: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.record_view import RecordView # noqa: PLC0415
        from ..models.skipped_line import SkippedLine # noqa: PLC0415
        added = []
        for added_item_data in self.added:
            added_item = added_item_data.to_dict()
            added.append(added_item)



        records = self.records

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)



        soa_serial = self.soa_serial


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "added": added,
            "records": records,
            "skipped": skipped,
            "soa_serial": soa_serial,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.record_view import RecordView # noqa: PLC0415
        from ..models.skipped_line import SkippedLine # noqa: PLC0415
        d = dict(src_dict)
        added = []
        _added = d.pop("added")
        for added_item_data in (_added):
            added_item = RecordView.from_dict(added_item_data)



            added.append(added_item)


        records = d.pop("records")

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in (_skipped):
            skipped_item = SkippedLine.from_dict(skipped_item_data)



            skipped.append(skipped_item)


        soa_serial = d.pop("soa_serial")

        import_result = cls(
            added=added,
            records=records,
            skipped=skipped,
            soa_serial=soa_serial,
        )


        import_result.additional_properties = d
        return import_result

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
