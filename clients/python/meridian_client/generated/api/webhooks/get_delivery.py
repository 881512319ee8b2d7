from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delivery_view import DeliveryView
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    delivery_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/webhooks/deliveries/{delivery_id}".format(delivery_id=quote(str(delivery_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeliveryView | Problem:
    if response.status_code == 200:
        response_200 = DeliveryView.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeliveryView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[DeliveryView | Problem]:
    """ 
    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryView | Problem]
     """


    kwargs = _get_kwargs(
        delivery_id=delivery_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    delivery_id: str,
    *,
    client: AuthenticatedClient,

) -> DeliveryView | Problem | None:
    """ 
    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryView | Problem
     """


    return sync_detailed(
        delivery_id=delivery_id,
client=client,

    ).parsed

async def asyncio_detailed(
    delivery_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[DeliveryView | Problem]:
    """ 
    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryView | Problem]
     """


    kwargs = _get_kwargs(
        delivery_id=delivery_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    delivery_id: str,
    *,
    client: AuthenticatedClient,

) -> DeliveryView | Problem | None:
    """ 
    Args:
        delivery_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryView | Problem
     """


    return (await asyncio_detailed(
        delivery_id=delivery_id,
client=client,

    )).parsed
