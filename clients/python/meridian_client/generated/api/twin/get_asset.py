from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.twin_asset import TwinAsset
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    twin_id: str,
    fid: str,
    *,
    time: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["time"] = time


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/realtime/twin/{twin_id}/features/{fid}".format(twin_id=quote(str(twin_id), safe=""),fid=quote(str(fid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | TwinAsset:
    if response.status_code == 200:
        response_200 = TwinAsset.from_dict(response.json())



        return response_200

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | TwinAsset]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    twin_id: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Response[Problem | TwinAsset]:
    """ 
    Args:
        twin_id (str):
        fid (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TwinAsset]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
fid=fid,
time=time,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Problem | TwinAsset | None:
    """ 
    Args:
        twin_id (str):
        fid (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TwinAsset
     """


    return sync_detailed(
        twin_id=twin_id,
fid=fid,
client=client,
time=time,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Response[Problem | TwinAsset]:
    """ 
    Args:
        twin_id (str):
        fid (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TwinAsset]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
fid=fid,
time=time,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    time: str | Unset = UNSET,

) -> Problem | TwinAsset | None:
    """ 
    Args:
        twin_id (str):
        fid (str):
        time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TwinAsset
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
fid=fid,
client=client,
time=time,

    )).parsed
