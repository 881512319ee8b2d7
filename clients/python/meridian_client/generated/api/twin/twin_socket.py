from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    twin_id: str,
    *,
    since: str | Unset = UNSET,
    sensors: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["since"] = since

    params["sensors"] = sensors


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/realtime/twin/{twin_id}".format(twin_id=quote(str(twin_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem:
    if response.status_code == 101:
        response_101 = cast(Any, None)
        return response_101

    if response.status_code == 426:
        response_426 = Problem.from_dict(response.json())



        return response_426

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem]:
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
    since: str | Unset = UNSET,
    sensors: str | Unset = UNSET,

) -> Response[Any | Problem]:
    """ 
    Args:
        twin_id (str):
        since (str | Unset):
        sensors (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
since=since,
sensors=sensors,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    sensors: str | Unset = UNSET,

) -> Any | Problem | None:
    """ 
    Args:
        twin_id (str):
        since (str | Unset):
        sensors (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
     """


    return sync_detailed(
        twin_id=twin_id,
client=client,
since=since,
sensors=sensors,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    sensors: str | Unset = UNSET,

) -> Response[Any | Problem]:
    """ 
    Args:
        twin_id (str):
        since (str | Unset):
        sensors (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
since=since,
sensors=sensors,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    sensors: str | Unset = UNSET,

) -> Any | Problem | None:
    """ 
    Args:
        twin_id (str):
        since (str | Unset):
        sensors (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
client=client,
since=since,
sensors=sensors,

    )).parsed
