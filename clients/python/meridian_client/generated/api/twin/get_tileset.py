from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.pending import Pending
from ...models.problem import Problem
from ...models.tileset import Tileset
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    twin_id: str,
    *,
    time: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["time"] = time


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/realtime/twin/{twin_id}/tileset".format(twin_id=quote(str(twin_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Pending | Problem | Tileset:
    if response.status_code == 200:
        response_200 = Tileset.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = Pending.from_dict(response.json())



        return response_202

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Pending | Problem | Tileset]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Response[Any | Pending | Problem | Tileset]:
    """ 
    Args:
        twin_id (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Pending | Problem | Tileset]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
time=time,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Any | Pending | Problem | Tileset | None:
    """ 
    Args:
        twin_id (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Pending | Problem | Tileset
     """


    return sync_detailed(
        twin_id=twin_id,
client=client,
time=time,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Response[Any | Pending | Problem | Tileset]:
    """ 
    Args:
        twin_id (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Pending | Problem | Tileset]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
time=time,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Any | Pending | Problem | Tileset | None:
    """ 
    Args:
        twin_id (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Pending | Problem | Tileset
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
client=client,
time=time,

    )).parsed
