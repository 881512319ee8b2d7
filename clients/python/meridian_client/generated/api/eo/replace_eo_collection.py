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
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    cid: str,
    *,
    body: StacCollection,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/eo/collections/{cid}".format(cid=quote(str(cid), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacCollection:
    if response.status_code == 200:
        response_200 = StacCollection.from_dict(response.json())



        return response_200

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

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
    cid: str,
    *,
    client: AuthenticatedClient,
    body: StacCollection,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacCollection]:
    """ 
    Args:
        cid (str):
        if_match (None | str | Unset):
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
        cid=cid,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    *,
    client: AuthenticatedClient,
    body: StacCollection,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacCollection | None:
    """ 
    Args:
        cid (str):
        if_match (None | str | Unset):
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
        cid=cid,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,
    body: StacCollection,
    if_match: None | str | Unset = UNSET,

) -> Response[Problem | StacCollection]:
    """ 
    Args:
        cid (str):
        if_match (None | str | Unset):
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
        cid=cid,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    *,
    client: AuthenticatedClient,
    body: StacCollection,
    if_match: None | str | Unset = UNSET,

) -> Problem | StacCollection | None:
    """ 
    Args:
        cid (str):
        if_match (None | str | Unset):
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
        cid=cid,
client=client,
body=body,
if_match=if_match,

    )).parsed
