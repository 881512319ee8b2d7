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






T = TypeVar("T", bound="RecordView")



@_attrs_define
class RecordView:
    """ A DNS record.

        Attributes:
            content (str): The address, target host, text or CAA value.
            created_at (datetime.datetime):
            id (str): `rec_...`
            name (str): Fully qualified, without the trailing dot.
            ttl (int): Seconds.
            type_ (str): A, AAAA, CNAME, MX, TXT, NS, SRV, CAA or PTR.
            updated_at (datetime.datetime):
            zone_id (str): `zone_...`
            flags (int | None | Unset): CAA flags (0, or 128 for critical).
            port (int | None | Unset): SRV port.
            priority (int | None | Unset): MX preference or SRV priority.
            tag (None | str | Unset): CAA tag (`issue`, `issuewild`, `iodef`).
            weight (int | None | Unset): SRV weight.
     """

    content: str
    created_at: datetime.datetime
    id: str
    name: str
    ttl: int
    type_: str
    updated_at: datetime.datetime
    zone_id: str
    flags: int | None | Unset = UNSET
    port: int | None | Unset = UNSET
    priority: int | None | Unset = UNSET
    tag: None | str | Unset = UNSET
    weight: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        content = self.content

        created_at = self.created_at.isoformat()

        id = self.id

        name = self.name

        ttl = self.ttl

        type_ = self.type_

        updated_at = self.updated_at.isoformat()

        zone_id = self.zone_id

        flags: int | None | Unset
        if isinstance(self.flags, Unset):
            flags = UNSET
        else:
            flags = self.flags

        port: int | None | Unset
        if isinstance(self.port, Unset):
            port = UNSET
        else:
            port = self.port

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        tag: None | str | Unset
        if isinstance(self.tag, Unset):
            tag = UNSET
        else:
            tag = self.tag

        weight: int | None | Unset
        if isinstance(self.weight, Unset):
            weight = UNSET
        else:
            weight = self.weight


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "content": content,
            "created_at": created_at,
            "id": id,
            "name": name,
            "ttl": ttl,
            "type": type_,
            "updated_at": updated_at,
            "zone_id": zone_id,
        })
        if flags is not UNSET:
            field_dict["flags"] = flags
        if port is not UNSET:
            field_dict["port"] = port
        if priority is not UNSET:
            field_dict["priority"] = priority
        if tag is not UNSET:
            field_dict["tag"] = tag
        if weight is not UNSET:
            field_dict["weight"] = weight

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content = d.pop("content")

        created_at = _isoparse(d.pop("created_at"))




        id = d.pop("id")

        name = d.pop("name")

        ttl = d.pop("ttl")

        type_ = d.pop("type")

        updated_at = _isoparse(d.pop("updated_at"))




        zone_id = d.pop("zone_id")

        def _parse_flags(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        flags = _parse_flags(d.pop("flags", UNSET))


        def _parse_port(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        port = _parse_port(d.pop("port", UNSET))


        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        priority = _parse_priority(d.pop("priority", UNSET))


        def _parse_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        tag = _parse_tag(d.pop("tag", UNSET))


        def _parse_weight(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        weight = _parse_weight(d.pop("weight", UNSET))


        record_view = cls(
            content=content,
            created_at=created_at,
            id=id,
            name=name,
            ttl=ttl,
            type_=type_,
            updated_at=updated_at,
            zone_id=zone_id,
            flags=flags,
            port=port,
            priority=priority,
            tag=tag,
            weight=weight,
        )


        record_view.additional_properties = d
        return record_view

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
