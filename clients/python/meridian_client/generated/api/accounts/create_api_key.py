from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_api_key import CreateApiKey
from ...models.created_api_key import CreatedApiKey
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: CreateApiKey,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/account/api-keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CreatedApiKey | Problem:
    if response.status_code == 201:
        response_201 = CreatedApiKey.from_dict(response.json())



        return response_201

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CreatedApiKey | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateApiKey,

) -> Response[CreatedApiKey | Problem]:
    """ 
    Args:
        body (CreateApiKey): Body of key creation. Example: {'expires_in': 2592000, 'name': 'dns-
            bot', 'scopes': ['dns:write']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedApiKey | Problem]
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
    body: CreateApiKey,

) -> CreatedApiKey | Problem | None:
    """ 
    Args:
        body (CreateApiKey): Body of key creation. Example: {'expires_in': 2592000, 'name': 'dns-
            bot', 'scopes': ['dns:write']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedApiKey | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateApiKey,

) -> Response[CreatedApiKey | Problem]:
    """ 
    Args:
        body (CreateApiKey): Body of key creation. Example: {'expires_in': 2592000, 'name': 'dns-
            bot', 'scopes': ['dns:write']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedApiKey | Problem]
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
    body: CreateApiKey,

) -> CreatedApiKey | Problem | None:
    """ 
    Args:
        body (CreateApiKey): Body of key creation. Example: {'expires_in': 2592000, 'name': 'dns-
            bot', 'scopes': ['dns:write']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedApiKey | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
