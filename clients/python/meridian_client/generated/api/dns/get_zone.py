from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.zone_view import ZoneView
from typing import cast



def _get_kwargs(
    zone_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/dns/zones/{zone_id}".format(zone_id=quote(str(zone_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ZoneView:
    if response.status_code == 200:
        response_200 = ZoneView.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ZoneView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | ZoneView]:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ZoneView]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    zone_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | ZoneView | None:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ZoneView
     """


    return sync_detailed(
        zone_id=zone_id,
client=client,

    ).parsed

async def asyncio_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | ZoneView]:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ZoneView]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    zone_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | ZoneView | None:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ZoneView
     """


    return (await asyncio_detailed(
        zone_id=zone_id,
client=client,

    )).parsed
