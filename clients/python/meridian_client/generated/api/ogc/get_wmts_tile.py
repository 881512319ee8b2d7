from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/wmts/1.0.0/{layer}/{style}/{tile_matrix_set}/{tile_matrix}/{tile_row}/{tile_col}".format(layer=quote(str(layer), safe=""),style=quote(str(style), safe=""),tile_matrix_set=quote(str(tile_matrix_set), safe=""),tile_matrix=quote(str(tile_matrix), safe=""),tile_row=quote(str(tile_row), safe=""),tile_col=quote(str(tile_col), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | list[int] | str:
    if response.status_code == 200:
        response_200 = cast(list[int], response.content)

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = cast(str, response.content)
        return response_400

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem | list[int] | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,
    *,
    client: AuthenticatedClient,

) -> Response[Any | Problem | list[int] | str]:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | list[int] | str]
     """


    kwargs = _get_kwargs(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,
    *,
    client: AuthenticatedClient,

) -> Any | Problem | list[int] | str | None:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | list[int] | str
     """


    return sync_detailed(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
client=client,

    ).parsed

async def asyncio_detailed(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,
    *,
    client: AuthenticatedClient,

) -> Response[Any | Problem | list[int] | str]:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | list[int] | str]
     """


    kwargs = _get_kwargs(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,
    *,
    client: AuthenticatedClient,

) -> Any | Problem | list[int] | str | None:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | list[int] | str
     """


    return (await asyncio_detailed(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
client=client,

    )).parsed
