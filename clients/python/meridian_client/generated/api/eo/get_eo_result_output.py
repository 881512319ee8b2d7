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
from ...types import UNSET, Unset
from io import BytesIO
from typing import cast



def _get_kwargs(
    id: str,
    name: str,
    *,
    range_: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(range_, Unset):
        headers["Range"] = range_



    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/eo/results/{id}/outputs/{name}".format(id=quote(str(id), safe=""),name=quote(str(name), safe=""),),
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | File | Problem:
    if response.status_code == 200:
        response_200 = File(
             payload = BytesIO(response.content)
        )



        return response_200

    if response.status_code == 206:
        response_206 = File(
             payload = BytesIO(response.content)
        )



        return response_206

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
    id: str,
    name: str,
    *,
    client: AuthenticatedClient,
    range_: None | str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        id (str):
        name (str):
        range_ (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
name=name,
range_=range_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    name: str,
    *,
    client: AuthenticatedClient,
    range_: None | str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        id (str):
        name (str):
        range_ (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return sync_detailed(
        id=id,
name=name,
client=client,
range_=range_,

    ).parsed

async def asyncio_detailed(
    id: str,
    name: str,
    *,
    client: AuthenticatedClient,
    range_: None | str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        id (str):
        name (str):
        range_ (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
name=name,
range_=range_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    name: str,
    *,
    client: AuthenticatedClient,
    range_: None | str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        id (str):
        name (str):
        range_ (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return (await asyncio_detailed(
        id=id,
name=name,
client=client,
range_=range_,

    )).parsed
