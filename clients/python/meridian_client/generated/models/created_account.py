from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.account_view import AccountView





T = TypeVar("T", bound="CreatedAccount")



@_attrs_define
class CreatedAccount:
    """ Answer of sign-up: the account and its first API key, shown this once.

        Attributes:
            account (AccountView): An account as its owner sees it.
            api_key (str): The API key (`mrd_...`). It is stored only as a hash: keep it now.
     """

    account: AccountView
    api_key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.account_view import AccountView # noqa: PLC0415
        account = self.account.to_dict()

        api_key = self.api_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "account": account,
            "api_key": api_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.account_view import AccountView # noqa: PLC0415
        d = dict(src_dict)
        account = AccountView.from_dict(d.pop("account"))




        api_key = d.pop("api_key")

        created_account = cls(
            account=account,
            api_key=api_key,
        )


        created_account.additional_properties = d
        return created_account

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
