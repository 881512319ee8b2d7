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
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: ParcelDraft,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/cadastre/parcels/{id}".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/geo+json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Parcel | Problem:
    if response.status_code == 200:
        response_200 = Parcel.from_dict(response.json())



        return response_200

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
    id: str,
    *,
    client: AuthenticatedClient,
    body: ParcelDraft,
    if_match: None | str | Unset = UNSET,

) -> Response[Parcel | Problem]:
    """ 
    Args:
        id (str):
        if_match (None | str | Unset):
        body (ParcelDraft): A parcel to register or replace Example: {'geometry': {'coordinates':
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
        id=id,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ParcelDraft,
    if_match: None | str | Unset = UNSET,

) -> Parcel | Problem | None:
    """ 
    Args:
        id (str):
        if_match (None | str | Unset):
        body (ParcelDraft): A parcel to register or replace Example: {'geometry': {'coordinates':
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
        id=id,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ParcelDraft,
    if_match: None | str | Unset = UNSET,

) -> Response[Parcel | Problem]:
    """ 
    Args:
        id (str):
        if_match (None | str | Unset):
        body (ParcelDraft): A parcel to register or replace Example: {'geometry': {'coordinates':
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
        id=id,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ParcelDraft,
    if_match: None | str | Unset = UNSET,

) -> Parcel | Problem | None:
    """ 
    Args:
        id (str):
        if_match (None | str | Unset):
        body (ParcelDraft): A parcel to register or replace Example: {'geometry': {'coordinates':
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
        id=id,
client=client,
body=body,
if_match=if_match,

    )).parsed
