from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.change_list import ChangeList
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    zone_id: str,
    *,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    params["cursor"] = cursor


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/dns/zones/{zone_id}/changes".format(zone_id=quote(str(zone_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ChangeList | Problem:
    if response.status_code == 200:
        response_200 = ChangeList.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ChangeList | Problem]:
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
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ChangeList | Problem]:
    """ 
    Args:
        zone_id (str):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChangeList | Problem]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
limit=limit,
offset=offset,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ChangeList | Problem | None:
    """ 
    Args:
        zone_id (str):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChangeList | Problem
     """


    return sync_detailed(
        zone_id=zone_id,
client=client,
limit=limit,
offset=offset,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ChangeList | Problem]:
    """ 
    Args:
        zone_id (str):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChangeList | Problem]
     """


    kwargs = _get_kwargs(
        zone_id=zone_id,
limit=limit,
offset=offset,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    zone_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ChangeList | Problem | None:
    """ 
    Args:
        zone_id (str):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChangeList | Problem
     """


    return (await asyncio_detailed(
        zone_id=zone_id,
client=client,
limit=limit,
offset=offset,
cursor=cursor,

    )).parsed
