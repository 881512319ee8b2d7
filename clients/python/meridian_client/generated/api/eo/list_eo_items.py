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
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    cid: str,
    *,
    bbox: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    filter_: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    fields: str | Unset = UNSET,
    token: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["bbox"] = bbox

    params["datetime"] = datetime_

    params["limit"] = limit

    params["filter"] = filter_

    params["sortby"] = sortby

    params["fields"] = fields

    params["token"] = token


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/eo/collections/{cid}/items".format(cid=quote(str(cid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | StacItemCollection:
    if response.status_code == 200:
        response_200 = StacItemCollection.from_dict(response.json())



        return response_200

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
    cid: str,
    *,
    client: AuthenticatedClient,
    bbox: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    filter_: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    fields: str | Unset = UNSET,
    token: str | Unset = UNSET,

) -> Response[Problem | StacItemCollection]:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        datetime_ (str | Unset):
        limit (int | Unset):
        filter_ (str | Unset):
        sortby (str | Unset):
        fields (str | Unset):
        token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItemCollection]
     """


    kwargs = _get_kwargs(
        cid=cid,
bbox=bbox,
datetime_=datetime_,
limit=limit,
filter_=filter_,
sortby=sortby,
fields=fields,
token=token,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    cid: str,
    *,
    client: AuthenticatedClient,
    bbox: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    filter_: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    fields: str | Unset = UNSET,
    token: str | Unset = UNSET,

) -> Problem | StacItemCollection | None:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        datetime_ (str | Unset):
        limit (int | Unset):
        filter_ (str | Unset):
        sortby (str | Unset):
        fields (str | Unset):
        token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItemCollection
     """


    return sync_detailed(
        cid=cid,
client=client,
bbox=bbox,
datetime_=datetime_,
limit=limit,
filter_=filter_,
sortby=sortby,
fields=fields,
token=token,

    ).parsed

async def asyncio_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,
    bbox: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    filter_: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    fields: str | Unset = UNSET,
    token: str | Unset = UNSET,

) -> Response[Problem | StacItemCollection]:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        datetime_ (str | Unset):
        limit (int | Unset):
        filter_ (str | Unset):
        sortby (str | Unset):
        fields (str | Unset):
        token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StacItemCollection]
     """


    kwargs = _get_kwargs(
        cid=cid,
bbox=bbox,
datetime_=datetime_,
limit=limit,
filter_=filter_,
sortby=sortby,
fields=fields,
token=token,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    cid: str,
    *,
    client: AuthenticatedClient,
    bbox: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    filter_: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    fields: str | Unset = UNSET,
    token: str | Unset = UNSET,

) -> Problem | StacItemCollection | None:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        datetime_ (str | Unset):
        limit (int | Unset):
        filter_ (str | Unset):
        sortby (str | Unset):
        fields (str | Unset):
        token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StacItemCollection
     """


    return (await asyncio_detailed(
        cid=cid,
client=client,
bbox=bbox,
datetime_=datetime_,
limit=limit,
filter_=filter_,
sortby=sortby,
fields=fields,
token=token,

    )).parsed
