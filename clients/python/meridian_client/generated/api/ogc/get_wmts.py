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
    *,
    service: str | Unset = UNSET,
    request: str | Unset = UNSET,
    version: str | Unset = UNSET,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    tilematrixset: str | Unset = UNSET,
    tilematrix: str | Unset = UNSET,
    tilerow: str | Unset = UNSET,
    tilecol: str | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["SERVICE"] = service

    params["REQUEST"] = request

    params["VERSION"] = version

    params["LAYER"] = layer

    params["STYLE"] = style

    params["TILEMATRIXSET"] = tilematrixset

    params["TILEMATRIX"] = tilematrix

    params["TILEROW"] = tilerow

    params["TILECOL"] = tilecol

    params["FORMAT"] = format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/wmts",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | str:
    if response.status_code == 200:
        response_200 = cast(str, response.json())
        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = cast(str, response.content)
        return response_400

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    service: str | Unset = UNSET,
    request: str | Unset = UNSET,
    version: str | Unset = UNSET,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    tilematrixset: str | Unset = UNSET,
    tilematrix: str | Unset = UNSET,
    tilerow: str | Unset = UNSET,
    tilecol: str | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Response[Any | Problem | str]:
    """ 
    Args:
        service (str | Unset):
        request (str | Unset):
        version (str | Unset):
        layer (str | Unset):
        style (str | Unset):
        tilematrixset (str | Unset):
        tilematrix (str | Unset):
        tilerow (str | Unset):
        tilecol (str | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | str]
     """


    kwargs = _get_kwargs(
        service=service,
request=request,
version=version,
layer=layer,
style=style,
tilematrixset=tilematrixset,
tilematrix=tilematrix,
tilerow=tilerow,
tilecol=tilecol,
format_=format_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    service: str | Unset = UNSET,
    request: str | Unset = UNSET,
    version: str | Unset = UNSET,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    tilematrixset: str | Unset = UNSET,
    tilematrix: str | Unset = UNSET,
    tilerow: str | Unset = UNSET,
    tilecol: str | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Any | Problem | str | None:
    """ 
    Args:
        service (str | Unset):
        request (str | Unset):
        version (str | Unset):
        layer (str | Unset):
        style (str | Unset):
        tilematrixset (str | Unset):
        tilematrix (str | Unset):
        tilerow (str | Unset):
        tilecol (str | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | str
     """


    return sync_detailed(
        client=client,
service=service,
request=request,
version=version,
layer=layer,
style=style,
tilematrixset=tilematrixset,
tilematrix=tilematrix,
tilerow=tilerow,
tilecol=tilecol,
format_=format_,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    service: str | Unset = UNSET,
    request: str | Unset = UNSET,
    version: str | Unset = UNSET,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    tilematrixset: str | Unset = UNSET,
    tilematrix: str | Unset = UNSET,
    tilerow: str | Unset = UNSET,
    tilecol: str | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Response[Any | Problem | str]:
    """ 
    Args:
        service (str | Unset):
        request (str | Unset):
        version (str | Unset):
        layer (str | Unset):
        style (str | Unset):
        tilematrixset (str | Unset):
        tilematrix (str | Unset):
        tilerow (str | Unset):
        tilecol (str | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | str]
     """


    kwargs = _get_kwargs(
        service=service,
request=request,
version=version,
layer=layer,
style=style,
tilematrixset=tilematrixset,
tilematrix=tilematrix,
tilerow=tilerow,
tilecol=tilecol,
format_=format_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    service: str | Unset = UNSET,
    request: str | Unset = UNSET,
    version: str | Unset = UNSET,
    layer: str | Unset = UNSET,
    style: str | Unset = UNSET,
    tilematrixset: str | Unset = UNSET,
    tilematrix: str | Unset = UNSET,
    tilerow: str | Unset = UNSET,
    tilecol: str | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Any | Problem | str | None:
    """ 
    Args:
        service (str | Unset):
        request (str | Unset):
        version (str | Unset):
        layer (str | Unset):
        style (str | Unset):
        tilematrixset (str | Unset):
        tilematrix (str | Unset):
        tilerow (str | Unset):
        tilecol (str | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | str
     """


    return (await asyncio_detailed(
        client=client,
service=service,
request=request,
version=version,
layer=layer,
style=style,
tilematrixset=tilematrixset,
tilematrix=tilematrix,
tilerow=tilerow,
tilecol=tilecol,
format_=format_,

    )).parsed
