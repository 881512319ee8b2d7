from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.parcel import Parcel
from ...models.parcel_draft import ParcelDraft
from ...models.parcel_draft_collection import ParcelDraftCollection
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: ParcelDraft | ParcelDraftCollection,
    content_crs: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(content_crs, Unset):
        headers["Content-Crs"] = content_crs



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/cadastre/parcels",
    }

    
    if isinstance(body, ParcelDraft):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/geo+json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Parcel | Problem:
    if response.status_code == 201:
        response_201 = Parcel.from_dict(response.json())



        return response_201

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Parcel | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ParcelDraft | ParcelDraftCollection,
    content_crs: str | Unset = UNSET,

) -> Response[Parcel | Problem]:
    """ 
    Args:
        content_crs (str | Unset):
        body (ParcelDraft | ParcelDraftCollection):  Example: {'geometry': {'coordinates':
            [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2,
            -33.87]]], 'type': 'Polygon'}, 'properties': {'lot': '12', 'plan': 'DP1234', 'tenure':
            'freehold'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Parcel | Problem]
     """


    kwargs = _get_kwargs(
        body=body,
content_crs=content_crs,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: ParcelDraft | ParcelDraftCollection,
    content_crs: str | Unset = UNSET,

) -> Parcel | Problem | None:
    """ 
    Args:
        content_crs (str | Unset):
        body (ParcelDraft | ParcelDraftCollection):  Example: {'geometry': {'coordinates':
            [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2,
            -33.87]]], 'type': 'Polygon'}, 'properties': {'lot': '12', 'plan': 'DP1234', 'tenure':
            'freehold'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Parcel | Problem
     """


    return sync_detailed(
        client=client,
body=body,
content_crs=content_crs,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ParcelDraft | ParcelDraftCollection,
    content_crs: str | Unset = UNSET,

) -> Response[Parcel | Problem]:
    """ 
    Args:
        content_crs (str | Unset):
        body (ParcelDraft | ParcelDraftCollection):  Example: {'geometry': {'coordinates':
            [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2,
            -33.87]]], 'type': 'Polygon'}, 'properties': {'lot': '12', 'plan': 'DP1234', 'tenure':
            'freehold'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Parcel | Problem]
     """


    kwargs = _get_kwargs(
        body=body,
content_crs=content_crs,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ParcelDraft | ParcelDraftCollection,
    content_crs: str | Unset = UNSET,

) -> Parcel | Problem | None:
    """ 
    Args:
        content_crs (str | Unset):
        body (ParcelDraft | ParcelDraftCollection):  Example: {'geometry': {'coordinates':
            [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2,
            -33.87]]], 'type': 'Polygon'}, 'properties': {'lot': '12', 'plan': 'DP1234', 'tenure':
            'freehold'}, 'type': 'Feature'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Parcel | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,
content_crs=content_crs,

    )).parsed
