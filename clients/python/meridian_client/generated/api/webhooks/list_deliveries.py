from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delivery_list import DeliveryList
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    subscription_id: str,
    *,
    status: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["status"] = status

    params["event_id"] = event_id

    params["limit"] = limit

    params["offset"] = offset

    params["cursor"] = cursor


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}/deliveries".format(subscription_id=quote(str(subscription_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeliveryList | Problem:
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeliveryList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[DeliveryList | Problem]:
    """ 
    Args:
        subscription_id (str):
        status (str | Unset):
        event_id (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
status=status,
event_id=event_id,
limit=limit,
offset=offset,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> DeliveryList | Problem | None:
    """ 
    Args:
        subscription_id (str):
        status (str | Unset):
        event_id (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | Problem
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,
status=status,
event_id=event_id,
limit=limit,
offset=offset,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[DeliveryList | Problem]:
    """ 
    Args:
        subscription_id (str):
        status (str | Unset):
        event_id (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
status=status,
event_id=event_id,
limit=limit,
offset=offset,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> DeliveryList | Problem | None:
    """ 
    Args:
        subscription_id (str):
        status (str | Unset):
        event_id (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | Problem
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,
status=status,
event_id=event_id,
limit=limit,
offset=offset,
cursor=cursor,

    )).parsed
