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
    z: int,
    x: int,
    y: str,
    *,
    colormap: str | Unset = UNSET,
    rescale: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["colormap"] = colormap

    params["rescale"] = rescale


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/eo/results/{id}/tiles/{z}/{x}/{y}".format(id=quote(str(id), safe=""),z=quote(str(z), safe=""),x=quote(str(x), safe=""),y=quote(str(y), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | File | Problem:
    if response.status_code == 200:
        response_200 = File(
             payload = BytesIO(response.content)
        )



        return response_200

    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    colormap: str | Unset = UNSET,
    rescale: str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        id (str):
        z (int):
        x (int):
        y (str):
        colormap (str | Unset):
        rescale (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
z=z,
x=x,
y=y,
colormap=colormap,
rescale=rescale,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    colormap: str | Unset = UNSET,
    rescale: str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        id (str):
        z (int):
        x (int):
        y (str):
        colormap (str | Unset):
        rescale (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return sync_detailed(
        id=id,
z=z,
x=x,
y=y,
client=client,
colormap=colormap,
rescale=rescale,

    ).parsed

async def asyncio_detailed(
    id: str,
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    colormap: str | Unset = UNSET,
    rescale: str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        id (str):
        z (int):
        x (int):
        y (str):
        colormap (str | Unset):
        rescale (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
z=z,
x=x,
y=y,
colormap=colormap,
rescale=rescale,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    colormap: str | Unset = UNSET,
    rescale: str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        id (str):
        z (int):
        x (int):
        y (str):
        colormap (str | Unset):
        rescale (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return (await asyncio_detailed(
        id=id,
z=z,
x=x,
y=y,
client=client,
colormap=colormap,
rescale=rescale,

    )).parsed
