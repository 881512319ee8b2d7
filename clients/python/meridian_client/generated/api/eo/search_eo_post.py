from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.stac_item_collection import StacItemCollection
from ...models.stac_search import StacSearch
from typing import cast



def _get_kwargs(
    *,
    body: StacSearch,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/eo/search",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacItemCollection:
    if response.status_code == 200:
        response_200 = StacItemCollection.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | StacItemCollection]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: StacSearch,

) -> Response[Problem | StacItemCollection]:
    """ 
    Args:
        body (StacSearch): STAC Item Search Example: {'bbox': [151.0, -34.0, 151.5, -33.5],
            'collections': ['cbers4'], 'datetime': '2017-01-01T00:00:00Z/..', 'limit': 10}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItemCollection]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: StacSearch,

) -> Problem | StacItemCollection | None:
    """ 
    Args:
        body (StacSearch): STAC Item Search Example: {'bbox': [151.0, -34.0, 151.5, -33.5],
            'collections': ['cbers4'], 'datetime': '2017-01-01T00:00:00Z/..', 'limit': 10}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItemCollection
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: StacSearch,

) -> Response[Problem | StacItemCollection]:
    """ 
    Args:
        body (StacSearch): STAC Item Search Example: {'bbox': [151.0, -34.0, 151.5, -33.5],
            'collections': ['cbers4'], 'datetime': '2017-01-01T00:00:00Z/..', 'limit': 10}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItemCollection]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: StacSearch,

) -> Problem | StacItemCollection | None:
    """ 
    Args:
        body (StacSearch): STAC Item Search Example: {'bbox': [151.0, -34.0, 151.5, -33.5],
            'collections': ['cbers4'], 'datetime': '2017-01-01T00:00:00Z/..', 'limit': 10}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItemCollection
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
