from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.readings import Readings
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    twin_id: str,
    sensor_id: str,
    *,
    from_: str | Unset = UNSET,
    to: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    interval: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["from"] = from_

    params["to"] = to

    params["limit"] = limit

    params["interval"] = interval


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings".format(twin_id=quote(str(twin_id), safe=""),sensor_id=quote(str(sensor_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Readings:
    if response.status_code == 200:
        response_200 = Readings.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Readings]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    twin_id: str,
    sensor_id: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    to: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    interval: str | Unset = UNSET,

) -> Response[Problem | Readings]:
    """ 
    Args:
        twin_id (str):
        sensor_id (str):
        from_ (str | Unset):
        to (str | Unset):
        limit (int | Unset):
        interval (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Readings]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
sensor_id=sensor_id,
from_=from_,
to=to,
limit=limit,
interval=interval,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    twin_id: str,
    sensor_id: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    to: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    interval: str | Unset = UNSET,

) -> Problem | Readings | None:
    """ 
    Args:
        twin_id (str):
        sensor_id (str):
        from_ (str | Unset):
        to (str | Unset):
        limit (int | Unset):
        interval (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Readings
     """


    return sync_detailed(
        twin_id=twin_id,
sensor_id=sensor_id,
client=client,
from_=from_,
to=to,
limit=limit,
interval=interval,

    ).parsed

async def asyncio_detailed(
    twin_id: str,
    sensor_id: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    to: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    interval: str | Unset = UNSET,

) -> Response[Problem | Readings]:
    """ 
    Args:
        twin_id (str):
        sensor_id (str):
        from_ (str | Unset):
        to (str | Unset):
        limit (int | Unset):
        interval (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Readings]
     """


    kwargs = _get_kwargs(
        twin_id=twin_id,
sensor_id=sensor_id,
from_=from_,
to=to,
limit=limit,
interval=interval,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    twin_id: str,
    sensor_id: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    to: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    interval: str | Unset = UNSET,

) -> Problem | Readings | None:
    """ 
    Args:
        twin_id (str):
        sensor_id (str):
        from_ (str | Unset):
        to (str | Unset):
        limit (int | Unset):
        interval (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Readings
     """


    return (await asyncio_detailed(
        twin_id=twin_id,
sensor_id=sensor_id,
client=client,
from_=from_,
to=to,
limit=limit,
interval=interval,

    )).parsed
