from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.feature_collection import FeatureCollection
from ...models.job_view import JobView
from ...models.ogc_collection import OgcCollection
from ...models.problem import Problem
from ...types import File, FileTypes
from ...types import UNSET, Unset
from io import BytesIO
from typing import cast



def _get_kwargs(
    *,
    body:    File  |     FeatureCollection  | Unset = UNSET,
    id: str | Unset = UNSET,
    title: str | Unset = UNSET,
    description: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["id"] = id

    params["title"] = title

    params["description"] = description


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/ogc/v1/features/collections",
        "params": params,
    }

    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/flatgeobuf"
    if isinstance(body, FeatureCollection):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/geo+json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobView | OgcCollection | Problem:
    if response.status_code == 201:
        response_201 = OgcCollection.from_dict(response.json())



        return response_201

    if response.status_code == 202:
        response_202 = JobView.from_dict(response.json())



        return response_202

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobView | OgcCollection | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body:    File  |     FeatureCollection  | Unset = UNSET,
    id: str | Unset = UNSET,
    title: str | Unset = UNSET,
    description: str | Unset = UNSET,

) -> Response[JobView | OgcCollection | Problem]:
    """ 
    Args:
        id (str | Unset):
        title (str | Unset):
        description (str | Unset):
        body (File):
        body (FeatureCollection): A GeoJSON FeatureCollection; a page of a list carries `links`
            (with `next`) and counts Example: {'features': [{'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}],
            'type': 'FeatureCollection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobView | OgcCollection | Problem]
     """


    kwargs = _get_kwargs(
        body=body,
id=id,
title=title,
description=description,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body:    File  |     FeatureCollection  | Unset = UNSET,
    id: str | Unset = UNSET,
    title: str | Unset = UNSET,
    description: str | Unset = UNSET,

) -> JobView | OgcCollection | Problem | None:
    """ 
    Args:
        id (str | Unset):
        title (str | Unset):
        description (str | Unset):
        body (File):
        body (FeatureCollection): A GeoJSON FeatureCollection; a page of a list carries `links`
            (with `next`) and counts Example: {'features': [{'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}],
            'type': 'FeatureCollection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobView | OgcCollection | Problem
     """


    return sync_detailed(
        client=client,
body=body,
id=id,
title=title,
description=description,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body:    File  |     FeatureCollection  | Unset = UNSET,
    id: str | Unset = UNSET,
    title: str | Unset = UNSET,
    description: str | Unset = UNSET,

) -> Response[JobView | OgcCollection | Problem]:
    """ 
    Args:
        id (str | Unset):
        title (str | Unset):
        description (str | Unset):
        body (File):
        body (FeatureCollection): A GeoJSON FeatureCollection; a page of a list carries `links`
            (with `next`) and counts Example: {'features': [{'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}],
            'type': 'FeatureCollection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobView | OgcCollection | Problem]
     """


    kwargs = _get_kwargs(
        body=body,
id=id,
title=title,
description=description,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body:    File  |     FeatureCollection  | Unset = UNSET,
    id: str | Unset = UNSET,
    title: str | Unset = UNSET,
    description: str | Unset = UNSET,

) -> JobView | OgcCollection | Problem | None:
    """ 
    Args:
        id (str | Unset):
        title (str | Unset):
        description (str | Unset):
        body (File):
        body (FeatureCollection): A GeoJSON FeatureCollection; a page of a list carries `links`
            (with `next`) and counts Example: {'features': [{'geometry': {'coordinates': [151.2093,
            -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'}, 'type': 'Feature'}],
            'type': 'FeatureCollection'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobView | OgcCollection | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,
id=id,
title=title,
description=description,

    )).parsed
