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

if TYPE_CHECKING:
  from ..models.attempt_view import AttemptView
  from ..models.delivery_view_event import DeliveryViewEvent





T = TypeVar("T", bound="DeliveryView")



@_attrs_define
class DeliveryView:
    """ One event's delivery to one subscription.

        Attributes:
            attempt_count (int): Attempts so far, over every redelivery.
            attempts (list[AttemptView]): Every attempt, oldest first.
            created_at (datetime.datetime):
            event (DeliveryViewEvent): The payload, as sent.
            event_id (str): `evt_...`: the `id` of the payload, which receivers deduplicate on.
            event_type (str):
            id (str): `dlv_...`
            status (str): `pending` (not attempted yet), `failed` (a retry is scheduled), `succeeded`, or
                `exhausted` (every attempt failed; redeliver or replay it).
            subscription_id (str): `whsub_...`
            updated_at (datetime.datetime):
            completed_at (datetime.datetime | None | Unset):
            next_attempt_at (datetime.datetime | None | Unset):
     """

    attempt_count: int
    attempts: list[AttemptView]
    created_at: datetime.datetime
    event: DeliveryViewEvent
    event_id: str
    event_type: str
    id: str
    status: str
    subscription_id: str
    updated_at: datetime.datetime
    completed_at: datetime.datetime | None | Unset = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_view import AttemptView # noqa: PLC0415
        from ..models.delivery_view_event import DeliveryViewEvent # noqa: PLC0415
        attempt_count = self.attempt_count

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)



        created_at = self.created_at.isoformat()

        event = self.event.to_dict()

        event_id = self.event_id

        event_type = self.event_type

        id = self.id

        status = self.status

        subscription_id = self.subscription_id

        updated_at = self.updated_at.isoformat()

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt_count": attempt_count,
            "attempts": attempts,
            "created_at": created_at,
            "event": event,
            "event_id": event_id,
            "event_type": event_type,
            "id": id,
            "status": status,
            "subscription_id": subscription_id,
            "updated_at": updated_at,
        })
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_view import AttemptView # noqa: PLC0415
        from ..models.delivery_view_event import DeliveryViewEvent # noqa: PLC0415
        d = dict(src_dict)
        attempt_count = d.pop("attempt_count")

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in (_attempts):
            attempts_item = AttemptView.from_dict(attempts_item_data)



            attempts.append(attempts_item)


        created_at = _isoparse(d.pop("created_at"))




        event = DeliveryViewEvent.from_dict(d.pop("event"))




        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        id = d.pop("id")

        status = d.pop("status")

        subscription_id = d.pop("subscription_id")

        updated_at = _isoparse(d.pop("updated_at"))




        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_1 = _isoparse(data)



                return completed_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))


        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_1 = _isoparse(data)



                return next_attempt_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))


        delivery_view = cls(
            attempt_count=attempt_count,
            attempts=attempts,
            created_at=created_at,
            event=event,
            event_id=event_id,
            event_type=event_type,
            id=id,
            status=status,
            subscription_id=subscription_id,
            updated_at=updated_at,
            completed_at=completed_at,
            next_attempt_at=next_attempt_at,
        )


        delivery_view.additional_properties = d
        return delivery_view

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
