from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.dem_job_view import DemJobView
from ...models.problem import Problem
from ...models.process_request import ProcessRequest
from ...models.process_upload import ProcessUpload
from typing import cast



def _get_kwargs(
    *,
    body:    ProcessRequest  |     ProcessUpload  | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/dem/process",
    }

    if isinstance(body, ProcessRequest):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, ProcessUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DemJobView | Problem:
    if response.status_code == 202:
        response_202 = DemJobView.from_dict(response.json())



        return response_202

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DemJobView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body:    ProcessRequest  |     ProcessUpload  | Unset = UNSET,

) -> Response[DemJobView | Problem]:
    """ 
    Args:
        body (ProcessRequest): A processing request on an earlier upload or result. Example:
            {'params': {'operations': [{'type': 'hillshade'}, {'type': 'slope'}]}, 'source':
            {'dataset_id': 'dataset_01m80pxqn5wq755fvheh5647jw'}}.
        body (ProcessUpload): A processing request with a file: `multipart/form-data` with these
            parts. Example: {'params': '{"operations": [{"type": "hillshade"}]}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DemJobView | Problem]
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
    body:    ProcessRequest  |     ProcessUpload  | Unset = UNSET,

) -> DemJobView | Problem | None:
    """ 
    Args:
        body (ProcessRequest): A processing request on an earlier upload or result. Example:
            {'params': {'operations': [{'type': 'hillshade'}, {'type': 'slope'}]}, 'source':
            {'dataset_id': 'dataset_01m80pxqn5wq755fvheh5647jw'}}.
        body (ProcessUpload): A processing request with a file: `multipart/form-data` with these
            parts. Example: {'params': '{"operations": [{"type": "hillshade"}]}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DemJobView | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body:    ProcessRequest  |     ProcessUpload  | Unset = UNSET,

) -> Response[DemJobView | Problem]:
    """ 
    Args:
        body (ProcessRequest): A processing request on an earlier upload or result. Example:
            {'params': {'operations': [{'type': 'hillshade'}, {'type': 'slope'}]}, 'source':
            {'dataset_id': 'dataset_01m80pxqn5wq755fvheh5647jw'}}.
        body (ProcessUpload): A processing request with a file: `multipart/form-data` with these
            parts. Example: {'params': '{"operations": [{"type": "hillshade"}]}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DemJobView | Problem]
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
    body:    ProcessRequest  |     ProcessUpload  | Unset = UNSET,

) -> DemJobView | Problem | None:
    """ 
    Args:
        body (ProcessRequest): A processing request on an earlier upload or result. Example:
            {'params': {'operations': [{'type': 'hillshade'}, {'type': 'slope'}]}, 'source':
            {'dataset_id': 'dataset_01m80pxqn5wq755fvheh5647jw'}}.
        body (ProcessUpload): A processing request with a file: `multipart/form-data` with these
            parts. Example: {'params': '{"operations": [{"type": "hillshade"}]}'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DemJobView | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
