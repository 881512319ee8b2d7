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
    z: int,
    x: int,
    y: str,
    *,
    job: str,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    ramp: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["job"] = job

    params["layer"] = layer

    params["style"] = style

    params["ramp"] = ramp


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/dem/tiles/{z}/{x}/{y}".format(z=quote(str(z), safe=""),x=quote(str(x), safe=""),y=quote(str(y), safe=""),),
        "params": params,
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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

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
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    job: str,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    ramp: str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        z (int):
        x (int):
        y (str):
        job (str):
        layer (str | Unset):
        style (str | Unset):
        ramp (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        z=z,
x=x,
y=y,
job=job,
layer=layer,
style=style,
ramp=ramp,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    job: str,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    ramp: str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        z (int):
        x (int):
        y (str):
        job (str):
        layer (str | Unset):
        style (str | Unset):
        ramp (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return sync_detailed(
        z=z,
x=x,
y=y,
client=client,
job=job,
layer=layer,
style=style,
ramp=ramp,

    ).parsed

async def asyncio_detailed(
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    job: str,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    ramp: str | Unset = UNSET,

) -> Response[Any | File | Problem]:
    """ 
    Args:
        z (int):
        x (int):
        y (str):
        job (str):
        layer (str | Unset):
        style (str | Unset):
        ramp (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
     """


    kwargs = _get_kwargs(
        z=z,
x=x,
y=y,
job=job,
layer=layer,
style=style,
ramp=ramp,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    z: int,
    x: int,
    y: str,
    *,
    client: AuthenticatedClient,
    job: str,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    ramp: str | Unset = UNSET,

) -> Any | File | Problem | None:
    """ 
    Args:
        z (int):
        x (int):
        y (str):
        job (str):
        layer (str | Unset):
        style (str | Unset):
        ramp (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
     """


    return (await asyncio_detailed(
        z=z,
x=x,
y=y,
client=client,
job=job,
layer=layer,
style=style,
ramp=ramp,

    )).parsed
