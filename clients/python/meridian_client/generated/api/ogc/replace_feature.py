from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.feature import Feature
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    cid: str,
    fid: str,
    *,
    body: Feature,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/ogc/v1/features/collections/{cid}/items/{fid}".format(cid=quote(str(cid), safe=""),fid=quote(str(fid), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/geo+json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Feature | Problem:
    if response.status_code == 200:
        response_200 = Feature.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Feature | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cid: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    body: Feature,

) -> Response[Feature | Problem]:
    """ 
    Args:
        cid (str):
        fid (str):
        body (Feature): A GeoJSON Feature Example: {'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Feature | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,
fid=fid,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    body: Feature,

) -> Feature | Problem | None:
    """ 
    Args:
        cid (str):
        fid (str):
        body (Feature): A GeoJSON Feature Example: {'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Feature | Problem
     """


    return sync_detailed(
        cid=cid,
fid=fid,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    cid: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    body: Feature,

) -> Response[Feature | Problem]:
    """ 
    Args:
        cid (str):
        fid (str):
        body (Feature): A GeoJSON Feature Example: {'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Feature | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,
fid=fid,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    fid: str,
    *,
    client: AuthenticatedClient,
    body: Feature,

) -> Feature | Problem | None:
    """ 
    Args:
        cid (str):
        fid (str):
        body (Feature): A GeoJSON Feature Example: {'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Feature | Problem
     """


    return (await asyncio_detailed(
        cid=cid,
fid=fid,
client=client,
body=body,

    )).parsed
