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






T = TypeVar("T", bound="SubscriptionWithSecret")



@_attrs_define
class SubscriptionWithSecret:
    """ A subscription with its signing secret, shown on creation and rotation only.

        Attributes:
            created_at (datetime.datetime):
            events (list[str]): Event types and wildcards (`dns.*`, `*`).
            id (str): `whsub_...`
            status (str): `active` or `paused`.
            updated_at (datetime.datetime):
            url (str): The endpoint deliveries are POSTed to.
            secret (str): `whsec_...`: the key that signs deliveries. Keep it now.
            description (None | str | Unset):
            failing_since (datetime.datetime | None | Unset):
            paused_reason (None | str | Unset): Why it is paused: `user`, or `failing` when its deliveries failed for
                `webhooks.disable_after`.
            previous_secret_expires_at (datetime.datetime | None | Unset):
     """

    created_at: datetime.datetime
    events: list[str]
    id: str
    status: str
    updated_at: datetime.datetime
    url: str
    secret: str
    description: None | str | Unset = UNSET
    failing_since: datetime.datetime | None | Unset = UNSET
    paused_reason: None | str | Unset = UNSET
    previous_secret_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        events = self.events



        id = self.id

        status = self.status

        updated_at = self.updated_at.isoformat()

        url = self.url

        secret = self.secret

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        failing_since: None | str | Unset
        if isinstance(self.failing_since, Unset):
            failing_since = UNSET
        elif isinstance(self.failing_since, datetime.datetime):
            failing_since = self.failing_since.isoformat()
        else:
            failing_since = self.failing_since

        paused_reason: None | str | Unset
        if isinstance(self.paused_reason, Unset):
            paused_reason = UNSET
        else:
            paused_reason = self.paused_reason

        previous_secret_expires_at: None | str | Unset
        if isinstance(self.previous_secret_expires_at, Unset):
            previous_secret_expires_at = UNSET
        elif isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "events": events,
            "id": id,
            "status": status,
            "updated_at": updated_at,
            "url": url,
            "secret": secret,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if failing_since is not UNSET:
            field_dict["failing_since"] = failing_since
        if paused_reason is not UNSET:
            field_dict["paused_reason"] = paused_reason
        if previous_secret_expires_at is not UNSET:
            field_dict["previous_secret_expires_at"] = previous_secret_expires_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = _isoparse(d.pop("created_at"))




        events = cast(list[str], d.pop("events"))


        id = d.pop("id")

        status = d.pop("status")

        updated_at = _isoparse(d.pop("updated_at"))




        url = d.pop("url")

        secret = d.pop("secret")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_failing_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failing_since_type_1 = _isoparse(data)



                return failing_since_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        failing_since = _parse_failing_since(d.pop("failing_since", UNSET))


        def _parse_paused_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        paused_reason = _parse_paused_reason(d.pop("paused_reason", UNSET))


        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_1 = _isoparse(data)



                return previous_secret_expires_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(d.pop("previous_secret_expires_at", UNSET))


        subscription_with_secret = cls(
            created_at=created_at,
            events=events,
            id=id,
            status=status,
            updated_at=updated_at,
            url=url,
            secret=secret,
            description=description,
            failing_since=failing_since,
            paused_reason=paused_reason,
            previous_secret_expires_at=previous_secret_expires_at,
        )


        subscription_with_secret.additional_properties = d
        return subscription_with_secret

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
