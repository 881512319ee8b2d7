from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.record_body_flags import RecordBodyFlags
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RecordBody")



@_attrs_define
class RecordBody:
    """ A record to create, or the fields of a record to change.

        Example:
            {'content': '192.0.2.10', 'name': 'www', 'ttl': 300, 'type': 'A'}

        Attributes:
            content (None | str | Unset): IPv4/IPv6 address, target host name, text (split into 255-octet strings on the
                wire) or CAA value.
            flags (RecordBodyFlags | Unset): CAA flags: 0, or 128 (critical).
            name (None | str | Unset): Relative to the zone (`www`, `@` for the apex, `*.dev` for a wildcard) or fully
                qualified;
                internationalized names are stored as punycode. Default `@`.
            port (int | None | Unset): SRV port.
            priority (int | None | Unset): MX preference, SRV priority.
            tag (None | str | Unset): CAA tag: issue, issuewild, iodef.
            ttl (int | None | Unset): Seconds, 60 to 86400; default 3600.
            type_ (None | str | Unset): A, AAAA, CNAME, MX, TXT, NS, SRV, CAA or PTR (required on create; cannot change).
            weight (int | None | Unset): SRV weight.
     """

    content: None | str | Unset = UNSET
    flags: RecordBodyFlags | Unset = UNSET
    name: None | str | Unset = UNSET
    port: int | None | Unset = UNSET
    priority: int | None | Unset = UNSET
    tag: None | str | Unset = UNSET
    ttl: int | None | Unset = UNSET
    type_: None | str | Unset = UNSET
    weight: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        flags: int | Unset = UNSET
        if not isinstance(self.flags, Unset):
            flags = self.flags.value


        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

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

        ttl: int | None | Unset
        if isinstance(self.ttl, Unset):
            ttl = UNSET
        else:
            ttl = self.ttl

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        weight: int | None | Unset
        if isinstance(self.weight, Unset):
            weight = UNSET
        else:
            weight = self.weight


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if content is not UNSET:
            field_dict["content"] = content
        if flags is not UNSET:
            field_dict["flags"] = flags
        if name is not UNSET:
            field_dict["name"] = name
        if port is not UNSET:
            field_dict["port"] = port
        if priority is not UNSET:
            field_dict["priority"] = priority
        if tag is not UNSET:
            field_dict["tag"] = tag
        if ttl is not UNSET:
            field_dict["ttl"] = ttl
        if type_ is not UNSET:
            field_dict["type"] = type_
        if weight is not UNSET:
            field_dict["weight"] = weight

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        content = _parse_content(d.pop("content", UNSET))


        _flags = d.pop("flags", UNSET)
        flags: RecordBodyFlags | Unset
        if isinstance(_flags,  Unset):
            flags = UNSET
        else:
            flags = RecordBodyFlags(_flags)




        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        name = _parse_name(d.pop("name", UNSET))


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


        def _parse_ttl(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        ttl = _parse_ttl(d.pop("ttl", UNSET))


        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        type_ = _parse_type_(d.pop("type", UNSET))


        def _parse_weight(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        weight = _parse_weight(d.pop("weight", UNSET))


        record_body = cls(
            content=content,
            flags=flags,
            name=name,
            port=port,
            priority=priority,
            tag=tag,
            ttl=ttl,
            type_=type_,
            weight=weight,
        )

        return record_body

