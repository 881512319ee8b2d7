from __future__ import annotations
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    service: str,
    request: str,
    version: str | Unset = UNSET,
    type_names: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    resource_id: str | Unset = UNSET,
    sort_by: str | Unset = UNSET,
    count: str | Unset = UNSET,
    start_index: str | Unset = UNSET,
    result_type: str | Unset = UNSET,
    output_format: str | Unset = UNSET,
    srs_name: str | Unset = UNSET,
    property_name: str | Unset = UNSET,
    value_reference: str | Unset = UNSET,
    stored_query_id: str | Unset = UNSET,
    id: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["service"] = service

    params["request"] = request

    params["version"] = version

    params["typeNames"] = type_names

    params["filter"] = filter_

    params["bbox"] = bbox

    params["resourceId"] = resource_id

    params["sortBy"] = sort_by

    params["count"] = count

    params["startIndex"] = start_index

    params["resultType"] = result_type

    params["outputFormat"] = output_format

    params["srsName"] = srs_name

    params["propertyName"] = property_name

    params["valueReference"] = value_reference

    params["storedQuery_Id"] = stored_query_id

    params["id"] = id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/ogc/wfs",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | str:
    if response.status_code == 200:
        response_200 = cast(str, response.content)
        return response_200

    if response.status_code == 400:
        response_400 = cast(str, response.content)
        return response_400

    if response.status_code == 403:
        response_403 = cast(str, response.content)
        return response_403

    if response.status_code == 404:
        response_404 = cast(str, response.content)
        return response_404

    if response.status_code == 501:
        response_501 = cast(str, response.content)
        return response_501

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    service: str,
    request: str,
    version: str | Unset = UNSET,
    type_names: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    resource_id: str | Unset = UNSET,
    sort_by: str | Unset = UNSET,
    count: str | Unset = UNSET,
    start_index: str | Unset = UNSET,
    result_type: str | Unset = UNSET,
    output_format: str | Unset = UNSET,
    srs_name: str | Unset = UNSET,
    property_name: str | Unset = UNSET,
    value_reference: str | Unset = UNSET,
    stored_query_id: str | Unset = UNSET,
    id: str | Unset = UNSET,

) -> Response[Problem | str]:
    """  WFS 2.0 in the KVP encoding: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue,
    ListStoredQueries, DescribeStoredQueries. Parameter names are case-insensitive; every parameter of
    OGC 09-025r2 is accepted (those listed are the common ones). Errors are OWS 1.1 exception reports.

    Args:
        service (str):
        request (str):
        version (str | Unset):
        type_names (str | Unset):
        filter_ (str | Unset):
        bbox (str | Unset):
        resource_id (str | Unset):
        sort_by (str | Unset):
        count (str | Unset):
        start_index (str | Unset):
        result_type (str | Unset):
        output_format (str | Unset):
        srs_name (str | Unset):
        property_name (str | Unset):
        value_reference (str | Unset):
        stored_query_id (str | Unset):
        id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        service=service,
request=request,
version=version,
type_names=type_names,
filter_=filter_,
bbox=bbox,
resource_id=resource_id,
sort_by=sort_by,
count=count,
start_index=start_index,
result_type=result_type,
output_format=output_format,
srs_name=srs_name,
property_name=property_name,
value_reference=value_reference,
stored_query_id=stored_query_id,
id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    service: str,
    request: str,
    version: str | Unset = UNSET,
    type_names: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    resource_id: str | Unset = UNSET,
    sort_by: str | Unset = UNSET,
    count: str | Unset = UNSET,
    start_index: str | Unset = UNSET,
    result_type: str | Unset = UNSET,
    output_format: str | Unset = UNSET,
    srs_name: str | Unset = UNSET,
    property_name: str | Unset = UNSET,
    value_reference: str | Unset = UNSET,
    stored_query_id: str | Unset = UNSET,
    id: str | Unset = UNSET,

) -> Problem | str | None:
    """  WFS 2.0 in the KVP encoding: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue,
    ListStoredQueries, DescribeStoredQueries. Parameter names are case-insensitive; every parameter of
    OGC 09-025r2 is accepted (those listed are the common ones). Errors are OWS 1.1 exception reports.

    Args:
        service (str):
        request (str):
        version (str | Unset):
        type_names (str | Unset):
        filter_ (str | Unset):
        bbox (str | Unset):
        resource_id (str | Unset):
        sort_by (str | Unset):
        count (str | Unset):
        start_index (str | Unset):
        result_type (str | Unset):
        output_format (str | Unset):
        srs_name (str | Unset):
        property_name (str | Unset):
        value_reference (str | Unset):
        stored_query_id (str | Unset):
        id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return sync_detailed(
        client=client,
service=service,
request=request,
version=version,
type_names=type_names,
filter_=filter_,
bbox=bbox,
resource_id=resource_id,
sort_by=sort_by,
count=count,
start_index=start_index,
result_type=result_type,
output_format=output_format,
srs_name=srs_name,
property_name=property_name,
value_reference=value_reference,
stored_query_id=stored_query_id,
id=id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    service: str,
    request: str,
    version: str | Unset = UNSET,
    type_names: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    resource_id: str | Unset = UNSET,
    sort_by: str | Unset = UNSET,
    count: str | Unset = UNSET,
    start_index: str | Unset = UNSET,
    result_type: str | Unset = UNSET,
    output_format: str | Unset = UNSET,
    srs_name: str | Unset = UNSET,
    property_name: str | Unset = UNSET,
    value_reference: str | Unset = UNSET,
    stored_query_id: str | Unset = UNSET,
    id: str | Unset = UNSET,

) -> Response[Problem | str]:
    """  WFS 2.0 in the KVP encoding: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue,
    ListStoredQueries, DescribeStoredQueries. Parameter names are case-insensitive; every parameter of
    OGC 09-025r2 is accepted (those listed are the common ones). Errors are OWS 1.1 exception reports.

    Args:
        service (str):
        request (str):
        version (str | Unset):
        type_names (str | Unset):
        filter_ (str | Unset):
        bbox (str | Unset):
        resource_id (str | Unset):
        sort_by (str | Unset):
        count (str | Unset):
        start_index (str | Unset):
        result_type (str | Unset):
        output_format (str | Unset):
        srs_name (str | Unset):
        property_name (str | Unset):
        value_reference (str | Unset):
        stored_query_id (str | Unset):
        id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        service=service,
request=request,
version=version,
type_names=type_names,
filter_=filter_,
bbox=bbox,
resource_id=resource_id,
sort_by=sort_by,
count=count,
start_index=start_index,
result_type=result_type,
output_format=output_format,
srs_name=srs_name,
property_name=property_name,
value_reference=value_reference,
stored_query_id=stored_query_id,
id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    service: str,
    request: str,
    version: str | Unset = UNSET,
    type_names: str | Unset = UNSET,
    filter_: str | Unset = UNSET,
    bbox: str | Unset = UNSET,
    resource_id: str | Unset = UNSET,
    sort_by: str | Unset = UNSET,
    count: str | Unset = UNSET,
    start_index: str | Unset = UNSET,
    result_type: str | Unset = UNSET,
    output_format: str | Unset = UNSET,
    srs_name: str | Unset = UNSET,
    property_name: str | Unset = UNSET,
    value_reference: str | Unset = UNSET,
    stored_query_id: str | Unset = UNSET,
    id: str | Unset = UNSET,

) -> Problem | str | None:
    """  WFS 2.0 in the KVP encoding: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue,
    ListStoredQueries, DescribeStoredQueries. Parameter names are case-insensitive; every parameter of
    OGC 09-025r2 is accepted (those listed are the common ones). Errors are OWS 1.1 exception reports.

    Args:
        service (str):
        request (str):
        version (str | Unset):
        type_names (str | Unset):
        filter_ (str | Unset):
        bbox (str | Unset):
        resource_id (str | Unset):
        sort_by (str | Unset):
        count (str | Unset):
        start_index (str | Unset):
        result_type (str | Unset):
        output_format (str | Unset):
        srs_name (str | Unset):
        property_name (str | Unset):
        value_reference (str | Unset):
        stored_query_id (str | Unset):
        id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return (await asyncio_detailed(
        client=client,
service=service,
request=request,
version=version,
type_names=type_names,
filter_=filter_,
bbox=bbox,
resource_id=resource_id,
sort_by=sort_by,
count=count,
start_index=start_index,
result_type=result_type,
output_format=output_format,
srs_name=srs_name,
property_name=property_name,
value_reference=value_reference,
stored_query_id=stored_query_id,
id=id,

    )).parsed
