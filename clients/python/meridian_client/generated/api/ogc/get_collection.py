from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.ogc_collection import OgcCollection
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    cid: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/v1/features/collections/{cid}".format(cid=quote(str(cid), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> OgcCollection | Problem:
    if response.status_code == 200:
        response_200 = OgcCollection.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[OgcCollection | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,

) -> Response[OgcCollection | Problem]:
    """ 
    Args:
        cid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OgcCollection | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    *,
    client: AuthenticatedClient,

) -> OgcCollection | Problem | None:
    """ 
    Args:
        cid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OgcCollection | Problem
     """


    return sync_detailed(
        cid=cid,
client=client,

    ).parsed

async def asyncio_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,

) -> Response[OgcCollection | Problem]:
    """ 
    Args:
        cid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OgcCollection | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    *,
    client: AuthenticatedClient,

) -> OgcCollection | Problem | None:
    """ 
    Args:
        cid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OgcCollection | Problem
     """


    return (await asyncio_detailed(
        cid=cid,
client=client,

    )).parsed
