from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.stac_item import StacItem
from typing import cast



def _get_kwargs(
    cid: str,
    iid: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/eo/collections/{cid}/items/{iid}".format(cid=quote(str(cid), safe=""),iid=quote(str(iid), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacItem:
    if response.status_code == 200:
        response_200 = StacItem.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | StacItem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
iid=iid,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItem
     """


    return sync_detailed(
        cid=cid,
iid=iid,
client=client,

    ).parsed

async def asyncio_detailed(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | StacItem]:
    """ 
    Args:
        cid (str):
        iid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItem]
     """


    kwargs = _get_kwargs(
        cid=cid,
iid=iid,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    iid: str,
    *,
    client: AuthenticatedClient,

) -> Problem | StacItem | None:
    """ 
    Args:
        cid (str):
        iid (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItem
     """


    return (await asyncio_detailed(
        cid=cid,
iid=iid,
client=client,

    )).parsed
