from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...types import File, FileTypes
from io import BytesIO
from typing import cast



def _get_kwargs(
    twin_id: str,
    stamp: int,
    file: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/realtime/twin/{twin_id}/builds/{stamp}/{file}".format(twin_id=quote(str(twin_id), safe=""),stamp=quote(str(stamp), safe=""),file=quote(str(file), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | File | Problem:
    if response.status_code == 200:
        response_200 = File(
             payload = BytesIO(response.content)
        )



        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | File | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    twin_id: str,
    stamp: int,
    file: str,
    *,
    client: AuthenticatedClient,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        twin_id (str):
        stamp (int):
        file (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
stamp=stamp,
file=file,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    stamp: int,
    file: str,
    *,
    client: AuthenticatedClient,

) -> Any | File | Problem | None:
    """ 
    Args:
        twin_id (str):
        stamp (int):
        file (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return sync_detailed(
        twin_id=twin_id,
stamp=stamp,
file=file,
client=client,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    stamp: int,
    file: str,
    *,
    client: AuthenticatedClient,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        twin_id (str):
        stamp (int):
        file (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
stamp=stamp,
file=file,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    stamp: int,
    file: str,
    *,
    client: AuthenticatedClient,

) -> Any | File | Problem | None:
    """ 
    Args:
        twin_id (str):
        stamp (int):
        file (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
stamp=stamp,
file=file,
client=client,

    )).parsed
