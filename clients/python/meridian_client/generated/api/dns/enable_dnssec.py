from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.dnssec_view import DnssecView
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    zone_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/dns/zones/{zone_id}/dnssec".format(zone_id=quote(str(zone_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DnssecView | Problem:
    if response.status_code == 200:
        response_200 = DnssecView.from_dict(response.json())



        return response_200

    if response.status_code == 201:
        response_201 = DnssecView.from_dict(response.json())



        return response_201

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DnssecView | Problem]:
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

) -> Response[DnssecView | Problem]:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DnssecView | Problem]
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

) -> DnssecView | Problem | None:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DnssecView | Problem
     """


    return sync_detailed(
        zone_id=zone_id,
client=client,

    ).parsed

async def asyncio_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[DnssecView | Problem]:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DnssecView | Problem]
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

) -> DnssecView | Problem | None:
    """ 
    Args:
        zone_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DnssecView | Problem
     """


    return (await asyncio_detailed(
        zone_id=zone_id,
client=client,

    )).parsed
