from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.change_list_changes_item import ChangeListChangesItem





T = TypeVar("T", bound="ChangeList")



@_attrs_define
class ChangeList:
    """ A page of a zone's changes.

        Attributes:
            changes (list[ChangeListChangesItem]): Each change as a webhook receiver gets it: `id` (the event id), `event`
                (its type, such as
                `dns.record.updated`), `timestamp`, `zone`, `zone_id`, and what changed (`record`, ...).
            total (int): All the zone's changes still kept (`events.retention`).
     """

    changes: list[ChangeListChangesItem]
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.change_list_changes_item import ChangeListChangesItem # noqa: PLC0415
        changes = []
        for changes_item_data in self.changes:
            changes_item = changes_item_data.to_dict()
            changes.append(changes_item)



        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "changes": changes,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.change_list_changes_item import ChangeListChangesItem # noqa: PLC0415
        d = dict(src_dict)
        changes = []
        _changes = d.pop("changes")
        for changes_item_data in (_changes):
            changes_item = ChangeListChangesItem.from_dict(changes_item_data)



            changes.append(changes_item)


        total = d.pop("total")

        change_list = cls(
            changes=changes,
            total=total,
        )


        change_list.additional_properties = d
        return change_list

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
