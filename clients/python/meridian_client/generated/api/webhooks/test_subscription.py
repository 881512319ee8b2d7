from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.event_payload import EventPayload
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    subscription_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/subscriptions/{subscription_id}/test".format(subscription_id=quote(str(subscription_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventPayload | Problem:
    if response.status_code == 202:
        response_202 = EventPayload.from_dict(response.json())



        return response_202

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventPayload | Problem]:
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

) -> Response[EventPayload | Problem]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPayload | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> EventPayload | Problem | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPayload | Problem
     """


    return sync_detailed(
        subscription_id=subscription_id,
client=client,

    ).parsed

async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[EventPayload | Problem]:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPayload | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,

) -> EventPayload | Problem | None:
    """ 
    Args:
        subscription_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPayload | Problem
     """


    return (await asyncio_detailed(
        subscription_id=subscription_id,
client=client,

    )).parsed
