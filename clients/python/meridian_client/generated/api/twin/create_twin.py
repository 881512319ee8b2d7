from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_twin import CreateTwin
from ...models.problem import Problem
from ...models.twin_created import TwinCreated
from typing import cast



def _get_kwargs(
    *,
    body: CreateTwin,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/realtime/twins",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | TwinCreated:
    if response.status_code == 202:
        response_202 = TwinCreated.from_dict(response.json())



        return response_202

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | TwinCreated]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTwin,

) -> Response[Problem | TwinCreated]:
    """ 
    Args:
        body (CreateTwin): What a twin is made of. Example: {'bbox': [7.09, 45.91, 7.11, 45.93],
            'collection': 'parcels', 'default_height': 9, 'filter': "tenure = 'freehold'",
            'height_property': 'height', 'name': 'Old town'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TwinCreated]
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
    body: CreateTwin,

) -> Problem | TwinCreated | None:
    """ 
    Args:
        body (CreateTwin): What a twin is made of. Example: {'bbox': [7.09, 45.91, 7.11, 45.93],
            'collection': 'parcels', 'default_height': 9, 'filter': "tenure = 'freehold'",
            'height_property': 'height', 'name': 'Old town'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TwinCreated
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTwin,

) -> Response[Problem | TwinCreated]:
    """ 
    Args:
        body (CreateTwin): What a twin is made of. Example: {'bbox': [7.09, 45.91, 7.11, 45.93],
            'collection': 'parcels', 'default_height': 9, 'filter': "tenure = 'freehold'",
            'height_property': 'height', 'name': 'Old town'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TwinCreated]
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
    body: CreateTwin,

) -> Problem | TwinCreated | None:
    """ 
    Args:
        body (CreateTwin): What a twin is made of. Example: {'bbox': [7.09, 45.91, 7.11, 45.93],
            'collection': 'parcels', 'default_height': 9, 'filter': "tenure = 'freehold'",
            'height_property': 'height', 'name': 'Old town'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TwinCreated
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
