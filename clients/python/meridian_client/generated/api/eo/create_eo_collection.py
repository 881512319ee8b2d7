from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.stac_collection import StacCollection
from typing import cast



def _get_kwargs(
    *,
    body: StacCollection,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/eo/collections",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacCollection:
    if response.status_code == 201:
        response_201 = StacCollection.from_dict(response.json())



        return response_201

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | StacCollection]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: StacCollection,

) -> Response[Problem | StacCollection]:
    """ 
    Args:
        body (StacCollection): A STAC Collection (1.0) Example: {'description': 'CBERS-4 MUX
            scenes', 'extent': {'spatial': {'bbox': [[-180, -90, 180, 90]]}, 'temporal': {'interval':
            [['2017-01-01T00:00:00Z', None]]}}, 'id': 'cbers4', 'license': 'CC-BY-SA-3.0', 'links':
            [], 'stac_version': '1.0.0', 'type': 'Collection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacCollection]
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
    body: StacCollection,

) -> Problem | StacCollection | None:
    """ 
    Args:
        body (StacCollection): A STAC Collection (1.0) Example: {'description': 'CBERS-4 MUX
            scenes', 'extent': {'spatial': {'bbox': [[-180, -90, 180, 90]]}, 'temporal': {'interval':
            [['2017-01-01T00:00:00Z', None]]}}, 'id': 'cbers4', 'license': 'CC-BY-SA-3.0', 'links':
            [], 'stac_version': '1.0.0', 'type': 'Collection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacCollection
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: StacCollection,

) -> Response[Problem | StacCollection]:
    """ 
    Args:
        body (StacCollection): A STAC Collection (1.0) Example: {'description': 'CBERS-4 MUX
            scenes', 'extent': {'spatial': {'bbox': [[-180, -90, 180, 90]]}, 'temporal': {'interval':
            [['2017-01-01T00:00:00Z', None]]}}, 'id': 'cbers4', 'license': 'CC-BY-SA-3.0', 'links':
            [], 'stac_version': '1.0.0', 'type': 'Collection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacCollection]
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
    body: StacCollection,

) -> Problem | StacCollection | None:
    """ 
    Args:
        body (StacCollection): A STAC Collection (1.0) Example: {'description': 'CBERS-4 MUX
            scenes', 'extent': {'spatial': {'bbox': [[-180, -90, 180, 90]]}, 'temporal': {'interval':
            [['2017-01-01T00:00:00Z', None]]}}, 'id': 'cbers4', 'license': 'CC-BY-SA-3.0', 'links':
            [], 'stac_version': '1.0.0', 'type': 'Collection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacCollection
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
