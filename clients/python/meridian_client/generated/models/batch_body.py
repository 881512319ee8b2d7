from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.batch_update_body import BatchUpdateBody
  from ..models.delete_ref import DeleteRef
  from ..models.record_body import RecordBody





T = TypeVar("T", bound="BatchBody")



@_attrs_define
class BatchBody:
    """ Creates, updates and deletes, applied together (deletes first, then updates, then creates).

        Example:
            {'creates': [{'content': '192.0.2.12', 'name': 'api', 'type': 'A'}], 'deletes': [{'id':
                'rec_01m80pxqn5wq755fvheh5647jw'}]}

        Attributes:
            creates (list[RecordBody] | Unset):
            deletes (list[DeleteRef] | Unset):
            updates (list[BatchUpdateBody] | Unset):
     """

    creates: list[RecordBody] | Unset = UNSET
    deletes: list[DeleteRef] | Unset = UNSET
    updates: list[BatchUpdateBody] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_update_body import BatchUpdateBody # noqa: PLC0415
        from ..models.delete_ref import DeleteRef # noqa: PLC0415
        from ..models.record_body import RecordBody # noqa: PLC0415
        creates: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.creates, Unset):
            creates = []
            for creates_item_data in self.creates:
                creates_item = creates_item_data.to_dict()
                creates.append(creates_item)



        deletes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.deletes, Unset):
            deletes = []
            for deletes_item_data in self.deletes:
                deletes_item = deletes_item_data.to_dict()
                deletes.append(deletes_item)



        updates: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.updates, Unset):
            updates = []
            for updates_item_data in self.updates:
                updates_item = updates_item_data.to_dict()
                updates.append(updates_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if creates is not UNSET:
            field_dict["creates"] = creates
        if deletes is not UNSET:
            field_dict["deletes"] = deletes
        if updates is not UNSET:
            field_dict["updates"] = updates

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_update_body import BatchUpdateBody # noqa: PLC0415
        from ..models.delete_ref import DeleteRef # noqa: PLC0415
        from ..models.record_body import RecordBody # noqa: PLC0415
        d = dict(src_dict)
        _creates = d.pop("creates", UNSET)
        creates: list[RecordBody] | Unset = UNSET
        if _creates is not UNSET:
            creates = []
            for creates_item_data in _creates:
                creates_item = RecordBody.from_dict(creates_item_data)



                creates.append(creates_item)


        _deletes = d.pop("deletes", UNSET)
        deletes: list[DeleteRef] | Unset = UNSET
        if _deletes is not UNSET:
            deletes = []
            for deletes_item_data in _deletes:
                deletes_item = DeleteRef.from_dict(deletes_item_data)



                deletes.append(deletes_item)


        _updates = d.pop("updates", UNSET)
        updates: list[BatchUpdateBody] | Unset = UNSET
        if _updates is not UNSET:
            updates = []
            for updates_item_data in _updates:
                updates_item = BatchUpdateBody.from_dict(updates_item_data)



                updates.append(updates_item)


        batch_body = cls(
            creates=creates,
            deletes=deletes,
            updates=updates,
        )

        return batch_body

