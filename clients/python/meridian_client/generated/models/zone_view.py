from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="ZoneView")



@_attrs_define
class ZoneView:
    """ A zone.

        Attributes:
            created_at (datetime.datetime):
            dnssec (str): `active` when the zone is signed, else `disabled`.
            id (str): `zone_...`
            name (str): The zone's name, lowercase ASCII (internationalized names as punycode).
            nameservers (list[str]): The name servers in the zone's apex NS records; delegate the domain to them.
            records (int): How many records the zone holds (the server's SOA and apex NS not counted).
            soa_serial (int): The SOA serial; every change increases it (RFC 1982).
            status (str): `active`.
            updated_at (datetime.datetime):
     """

    created_at: datetime.datetime
    dnssec: str
    id: str
    name: str
    nameservers: list[str]
    records: int
    soa_serial: int
    status: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        dnssec = self.dnssec

        id = self.id

        name = self.name

        nameservers = self.nameservers



        records = self.records

        soa_serial = self.soa_serial

        status = self.status

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "dnssec": dnssec,
            "id": id,
            "name": name,
            "nameservers": nameservers,
            "records": records,
            "soa_serial": soa_serial,
            "status": status,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = _isoparse(d.pop("created_at"))




        dnssec = d.pop("dnssec")

        id = d.pop("id")

        name = d.pop("name")

        nameservers = cast(list[str], d.pop("nameservers"))


        records = d.pop("records")

        soa_serial = d.pop("soa_serial")

        status = d.pop("status")

        updated_at = _isoparse(d.pop("updated_at"))




        zone_view = cls(
            created_at=created_at,
            dnssec=dnssec,
            id=id,
            name=name,
            nameservers=nameservers,
            records=records,
            soa_serial=soa_serial,
            status=status,
            updated_at=updated_at,
        )


        zone_view.additional_properties = d
        return zone_view

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
