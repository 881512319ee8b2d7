from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.record_view import RecordView
from typing import cast



def _get_kwargs(
    zone_id: str,
    record_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/dns/zones/{zone_id}/records/{record_id}".format(zone_id=quote(str(zone_id), safe=""),record_id=quote(str(record_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RecordView:
    if response.status_code == 200:
        response_200 = RecordView.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RecordView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    zone_id: str,
    record_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | RecordView]:
    """ 
    Args:
        zone_id (str):
        record_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RecordView]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
record_id=record_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    zone_id: str,
    record_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | RecordView | None:
    """ 
    Args:
        zone_id (str):
        record_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RecordView
     """


    return sync_detailed(
        zone_id=zone_id,
record_id=record_id,
client=client,

    ).parsed

async def asyncio_detailed(
    zone_id: str,
    record_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | RecordView]:
    """ 
    Args:
        zone_id (str):
        record_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RecordView]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
record_id=record_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    zone_id: str,
    record_id: str,
    *,
    client: AuthenticatedClient,

) -> Problem | RecordView | None:
    """ 
    Args:
        zone_id (str):
        record_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RecordView
     """


    return (await asyncio_detailed(
        zone_id=zone_id,
record_id=record_id,
client=client,

    )).parsed
