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
    j: str,
    i: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/wmts/1.0.0/{layer}/{style}/{tile_matrix_set}/{tile_matrix}/{tile_row}/{tile_col}/{j}/{i}".format(layer=quote(str(layer), safe=""),style=quote(str(style), safe=""),tile_matrix_set=quote(str(tile_matrix_set), safe=""),tile_matrix=quote(str(tile_matrix), safe=""),tile_row=quote(str(tile_row), safe=""),tile_col=quote(str(tile_col), safe=""),j=quote(str(j), safe=""),i=quote(str(i), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | str:
    if response.status_code == 200:
        response_200 = cast(str, response.json())
        return response_200

    if response.status_code == 400:
        response_400 = cast(str, response.content)
        return response_400

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | str]:
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
    j: str,
    i: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | str]:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):
        j (str):
        i (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
j=j,
i=i,

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
    j: str,
    i: str,
    *,
    client: AuthenticatedClient,

) -> Problem | str | None:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):
        j (str):
        i (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return sync_detailed(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
j=j,
i=i,
client=client,

    ).parsed

async def asyncio_detailed(
    layer: str,
    style: str,
    tile_matrix_set: str,
    tile_matrix: str,
    tile_row: str,
    tile_col: str,
    j: str,
    i: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | str]:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):
        j (str):
        i (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
j=j,
i=i,

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
    j: str,
    i: str,
    *,
    client: AuthenticatedClient,

) -> Problem | str | None:
    """ 
    Args:
        layer (str):
        style (str):
        tile_matrix_set (str):
        tile_matrix (str):
        tile_row (str):
        tile_col (str):
        j (str):
        i (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return (await asyncio_detailed(
        layer=layer,
style=style,
tile_matrix_set=tile_matrix_set,
tile_matrix=tile_matrix,
tile_row=tile_row,
tile_col=tile_col,
j=j,
i=i,
client=client,

    )).parsed
