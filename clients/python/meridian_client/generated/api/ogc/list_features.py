from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.feature_collection import FeatureCollection
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    cid: str,
    *,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    crs: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    filter_lang: str | Unset = UNSET,
    filter_crs: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    f: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["bbox"] = bbox

    params["bbox-crs"] = bbox_crs

    params["crs"] = crs

    params["limit"] = limit

    params["offset"] = offset

    params["cursor"] = cursor

    params["datetime"] = datetime_

    params["filter"] = filter_

    params["filter-lang"] = filter_lang

    params["filter-crs"] = filter_crs

    params["sortby"] = sortby

    params["f"] = f


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/v1/features/collections/{cid}/items".format(cid=quote(str(cid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> FeatureCollection | Problem:
    if response.status_code == 200:
        response_200 = FeatureCollection.from_dict(response.json())



        return response_200

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[FeatureCollection | Problem]:
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
    bbox_crs: str | Unset = UNSET,
    crs: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    filter_lang: str | Unset = UNSET,
    filter_crs: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    f: str | Unset = UNSET,

) -> Response[FeatureCollection | Problem]:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        crs (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):
        datetime_ (str | Unset):
        filter_ (str | Unset):
        filter_lang (str | Unset):
        filter_crs (str | Unset):
        sortby (str | Unset):
        f (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FeatureCollection | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,
bbox=bbox,
bbox_crs=bbox_crs,
crs=crs,
limit=limit,
offset=offset,
cursor=cursor,
datetime_=datetime_,
filter_=filter_,
filter_lang=filter_lang,
filter_crs=filter_crs,
sortby=sortby,
f=f,

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
    bbox_crs: str | Unset = UNSET,
    crs: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    filter_lang: str | Unset = UNSET,
    filter_crs: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    f: str | Unset = UNSET,

) -> FeatureCollection | Problem | None:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        crs (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):
        datetime_ (str | Unset):
        filter_ (str | Unset):
        filter_lang (str | Unset):
        filter_crs (str | Unset):
        sortby (str | Unset):
        f (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FeatureCollection | Problem
     """


    return sync_detailed(
        cid=cid,
client=client,
bbox=bbox,
bbox_crs=bbox_crs,
crs=crs,
limit=limit,
offset=offset,
cursor=cursor,
datetime_=datetime_,
filter_=filter_,
filter_lang=filter_lang,
filter_crs=filter_crs,
sortby=sortby,
f=f,

    ).parsed

async def asyncio_detailed(
    cid: str,
    *,
    client: AuthenticatedClient,
    bbox: str | Unset = UNSET,
    bbox_crs: str | Unset = UNSET,
    crs: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    filter_lang: str | Unset = UNSET,
    filter_crs: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    f: str | Unset = UNSET,

) -> Response[FeatureCollection | Problem]:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        crs (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):
        datetime_ (str | Unset):
        filter_ (str | Unset):
        filter_lang (str | Unset):
        filter_crs (str | Unset):
        sortby (str | Unset):
        f (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FeatureCollection | Problem]
     """


    kwargs = _get_kwargs(
        cid=cid,
bbox=bbox,
bbox_crs=bbox_crs,
crs=crs,
limit=limit,
offset=offset,
cursor=cursor,
datetime_=datetime_,
filter_=filter_,
filter_lang=filter_lang,
filter_crs=filter_crs,
sortby=sortby,
f=f,

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
    bbox_crs: str | Unset = UNSET,
    crs: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    datetime_: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    filter_lang: str | Unset = UNSET,
    filter_crs: str | Unset = UNSET,
    sortby: str | Unset = UNSET,
    f: str | Unset = UNSET,

) -> FeatureCollection | Problem | None:
    """ 
    Args:
        cid (str):
        bbox (str | Unset):
        bbox_crs (str | Unset):
        crs (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        cursor (str | Unset):
        datetime_ (str | Unset):
        filter_ (str | Unset):
        filter_lang (str | Unset):
        filter_crs (str | Unset):
        sortby (str | Unset):
        f (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FeatureCollection | Problem
     """


    return (await asyncio_detailed(
        cid=cid,
client=client,
bbox=bbox,
bbox_crs=bbox_crs,
crs=crs,
limit=limit,
offset=offset,
cursor=cursor,
datetime_=datetime_,
filter_=filter_,
filter_lang=filter_lang,
filter_crs=filter_crs,
sortby=sortby,
f=f,

    )).parsed
