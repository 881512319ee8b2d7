from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.dnskey_view import DnskeyView
  from ..models.ds_view import DsView





T = TypeVar("T", bound="DnssecView")



@_attrs_define
class DnssecView:
    """ A zone's DNSSEC state.

        Attributes:
            ds (list[DsView]): Publish these at the registrar to make the zone secure.
            keys (list[DnskeyView]):
            soa_serial (int): The zone's serial.
            status (str): `active` or `disabled`.
            zone_id (str):
     """

    ds: list[DsView]
    keys: list[DnskeyView]
    soa_serial: int
    status: str
    zone_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.dnskey_view import DnskeyView # noqa: PLC0415
        from ..models.ds_view import DsView # noqa: PLC0415
        ds = []
        for ds_item_data in self.ds:
            ds_item = ds_item_data.to_dict()
            ds.append(ds_item)



        keys = []
        for keys_item_data in self.keys:
            keys_item = keys_item_data.to_dict()
            keys.append(keys_item)



        soa_serial = self.soa_serial

        status = self.status

        zone_id = self.zone_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ds": ds,
            "keys": keys,
            "soa_serial": soa_serial,
            "status": status,
            "zone_id": zone_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dnskey_view import DnskeyView # noqa: PLC0415
        from ..models.ds_view import DsView # noqa: PLC0415
        d = dict(src_dict)
        ds = []
        _ds = d.pop("ds")
        for ds_item_data in (_ds):
            ds_item = DsView.from_dict(ds_item_data)



            ds.append(ds_item)


        keys = []
        _keys = d.pop("keys")
        for keys_item_data in (_keys):
            keys_item = DnskeyView.from_dict(keys_item_data)



            keys.append(keys_item)


        soa_serial = d.pop("soa_serial")

        status = d.pop("status")

        zone_id = d.pop("zone_id")

        dnssec_view = cls(
            ds=ds,
            keys=keys,
            soa_serial=soa_serial,
            status=status,
            zone_id=zone_id,
        )


        dnssec_view.additional_properties = d
        return dnssec_view

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
