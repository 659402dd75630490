"""An e-commerce back office as 64 tools (``TOOLS``), the catalogue the retrieval example and
``colmeia agent run --tool-catalog examples/tool_retrieval/catalog.py`` search.

A few tools answer from a small in-memory shop (orders, stock, prices, shipping); the others
confirm what they would do. What the example teaches is which tools the model is *offered*,
out of 64, for each step.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, create_model

from colmeia.errors import ToolError
from colmeia.tools import Tool

ORDERS = {
    "5001": {
        "status": "em trânsito",
        "carrier": "Correios",
        "code": "BR123456789",
        "eta": "2 dias",
    },
    "5002": {"status": "entregue", "carrier": "Jadlog", "code": "JD998877", "eta": "-"},
}
STOCK = {"fone bluetooth": 14, "cafeteira": 0, "notebook": 3, "camiseta": 120}
PRICES = {"fone bluetooth": 299.90, "cafeteira": 459.00, "notebook": 3499.00, "camiseta": 59.90}
COUPONS = {"BEMVINDO10": 10, "FRETEGRATIS": 0}

# (name, description, [(parameter, description), ...]) — descriptions in Portuguese, as the
# store's staff and customers write.
CATALOG: list[tuple[str, str, list[tuple[str, str]]]] = [
    (
        "track_order",
        "Rastrear a entrega de um pedido: status, transportadora, código de rastreio e previsão de chegada.",
        [("order_id", "Número do pedido")],
    ),
    (
        "get_order",
        "Consultar os detalhes de um pedido: itens, valores, endereço e forma de pagamento.",
        [("order_id", "Número do pedido")],
    ),
    (
        "cancel_order",
        "Cancelar um pedido que ainda não foi enviado.",
        [("order_id", "Número do pedido"), ("reason", "Motivo do cancelamento")],
    ),
    (
        "list_customer_orders",
        "Listar os pedidos de um cliente pelo e-mail.",
        [("email", "E-mail do cliente")],
    ),
    (
        "change_delivery_address",
        "Alterar o endereço de entrega de um pedido antes do envio.",
        [("order_id", "Número do pedido"), ("address", "Novo endereço")],
    ),
    (
        "reschedule_delivery",
        "Reagendar a data de entrega de um pedido.",
        [("order_id", "Número do pedido"), ("date", "Nova data")],
    ),
    (
        "check_stock",
        "Verificar se tem um produto em estoque: quantas unidades há disponíveis para venda.",
        [("product", "Nome do produto")],
    ),
    (
        "product_price",
        "Quanto custa um produto: o preço atual de venda, em reais.",
        [("product", "Nome do produto")],
    ),
    (
        "search_products",
        "Buscar produtos no catálogo por palavras-chave.",
        [("query", "Palavras-chave")],
    ),
    (
        "product_reviews",
        "Ler as avaliações e a nota média de um produto.",
        [("product", "Nome do produto")],
    ),
    (
        "compare_products",
        "Comparar as especificações de dois produtos lado a lado.",
        [("first", "Primeiro produto"), ("second", "Segundo produto")],
    ),
    (
        "product_specs",
        "Ficha técnica de um produto: dimensões, peso, voltagem e garantia.",
        [("product", "Nome do produto")],
    ),
    (
        "calculate_shipping",
        "Calcular o frete e o prazo de entrega para um CEP.",
        [("product", "Nome do produto"), ("cep", "CEP de destino")],
    ),
    (
        "apply_coupon",
        "Aplicar (aplique) um cupom de desconto a um valor: o preço final com o desconto do cupom.",
        [("code", "Código do cupom"), ("amount", "Valor em reais")],
    ),
    (
        "validate_coupon",
        "Verificar se um cupom de desconto é válido e quando expira.",
        [("code", "Código do cupom")],
    ),
    (
        "create_coupon",
        "Criar um novo cupom de desconto para uma campanha.",
        [("code", "Código"), ("percent", "Desconto em %")],
    ),
    (
        "open_return",
        "Abrir uma solicitação de devolução de um produto de um pedido.",
        [("order_id", "Número do pedido"), ("reason", "Motivo")],
    ),
    (
        "refund_status",
        "Consultar o andamento de um reembolso já solicitado.",
        [("order_id", "Número do pedido")],
    ),
    (
        "issue_refund",
        "Emitir o reembolso de um pedido para a forma de pagamento original.",
        [("order_id", "Número do pedido"), ("amount", "Valor")],
    ),
    (
        "exchange_product",
        "Trocar um produto por outro tamanho, cor ou modelo.",
        [("order_id", "Número do pedido"), ("new_item", "Item desejado")],
    ),
    (
        "warranty_claim",
        "Acionar a garantia de um produto com defeito.",
        [("order_id", "Número do pedido"), ("defect", "Defeito")],
    ),
    (
        "generate_invoice",
        "Gerar a segunda via da nota fiscal de um pedido.",
        [("order_id", "Número do pedido")],
    ),
    (
        "payment_status",
        "Verificar se o pagamento de um pedido foi aprovado, recusado ou está pendente.",
        [("order_id", "Número do pedido")],
    ),
    (
        "generate_boleto",
        "Gerar um boleto bancário para pagar um pedido.",
        [("order_id", "Número do pedido")],
    ),
    (
        "generate_pix",
        "Gerar um código Pix copia e cola para pagar um pedido.",
        [("order_id", "Número do pedido")],
    ),
    (
        "installment_options",
        "Simular o parcelamento no cartão de crédito: parcelas e juros.",
        [("amount", "Valor"), ("installments", "Número de parcelas")],
    ),
    (
        "update_customer_email",
        "Atualizar o e-mail do cadastro de um cliente.",
        [("customer_id", "Cliente"), ("email", "Novo e-mail")],
    ),
    (
        "update_customer_phone",
        "Atualizar o telefone do cadastro de um cliente.",
        [("customer_id", "Cliente"), ("phone", "Novo telefone")],
    ),
    (
        "reset_password",
        "Enviar ao cliente um link para redefinir a senha.",
        [("email", "E-mail do cliente")],
    ),
    (
        "delete_account",
        "Excluir a conta de um cliente e seus dados pessoais (LGPD).",
        [("customer_id", "Cliente")],
    ),
    (
        "export_customer_data",
        "Exportar os dados pessoais de um cliente (LGPD).",
        [("customer_id", "Cliente")],
    ),
    (
        "loyalty_points",
        "Consultar o saldo de pontos do programa de fidelidade.",
        [("customer_id", "Cliente")],
    ),
    (
        "redeem_points",
        "Trocar pontos de fidelidade por desconto.",
        [("customer_id", "Cliente"), ("points", "Pontos")],
    ),
    (
        "add_to_wishlist",
        "Adicionar um produto à lista de desejos do cliente.",
        [("customer_id", "Cliente"), ("product", "Produto")],
    ),
    (
        "notify_back_in_stock",
        "Avisar o cliente por e-mail quando um produto voltar ao estoque.",
        [("email", "E-mail"), ("product", "Produto")],
    ),
    (
        "gift_wrap",
        "Incluir embrulho para presente e cartão em um pedido.",
        [("order_id", "Número do pedido"), ("message", "Mensagem do cartão")],
    ),
    (
        "store_locator",
        "Encontrar as lojas físicas mais próximas de um CEP e seus horários.",
        [("cep", "CEP")],
    ),
    (
        "pickup_in_store",
        "Agendar a retirada de um pedido em uma loja física.",
        [("order_id", "Número do pedido"), ("store", "Loja")],
    ),
    (
        "open_ticket",
        "Abrir um chamado no atendimento para um problema que precisa de uma pessoa.",
        [("subject", "Assunto"), ("description", "Descrição")],
    ),
    (
        "ticket_status",
        "Consultar o andamento de um chamado de atendimento.",
        [("ticket_id", "Número do chamado")],
    ),
    (
        "send_sms",
        "Enviar um SMS para o telefone do cliente.",
        [("phone", "Telefone"), ("text", "Mensagem")],
    ),
    (
        "send_email",
        "Enviar um e-mail ao cliente com assunto e mensagem.",
        [("to", "Destinatário"), ("subject", "Assunto"), ("body", "Mensagem")],
    ),
    (
        "faq_search",
        "Buscar respostas nas perguntas frequentes da loja.",
        [("question", "Pergunta")],
    ),
    (
        "return_policy",
        "A política de trocas e devoluções por categoria de produto: prazos e condições.",
        [("category", "Categoria")],
    ),
    ("business_hours", "O horário de atendimento do SAC e do chat.", []),
    (
        "price_history",
        "O histórico de preços de um produto nos últimos 90 dias.",
        [("product", "Produto")],
    ),
    (
        "set_price",
        "Alterar o preço de venda de um produto (uso interno).",
        [("product", "Produto"), ("price", "Novo preço")],
    ),
    (
        "restock_product",
        "Registrar a entrada de novas unidades de um produto no estoque.",
        [("product", "Produto"), ("units", "Unidades")],
    ),
    ("supplier_contact", "Dados de contato do fornecedor de um produto.", [("product", "Produto")]),
    (
        "purchase_order",
        "Emitir um pedido de compra ao fornecedor.",
        [("product", "Produto"), ("units", "Unidades")],
    ),
    (
        "warehouse_location",
        "Em qual centro de distribuição e prateleira está um produto.",
        [("product", "Produto")],
    ),
    (
        "sales_report",
        "Relatório de vendas de um período: faturamento, pedidos e ticket médio.",
        [("period", "Período")],
    ),
    ("top_products", "Os produtos mais vendidos de um período.", [("period", "Período")]),
    (
        "abandoned_carts",
        "Listar carrinhos abandonados para campanhas de recuperação.",
        [("days", "Dias")],
    ),
    ("fraud_check", "Avaliar o risco de fraude de um pedido.", [("order_id", "Número do pedido")]),
    (
        "block_customer",
        "Bloquear um cliente por suspeita de fraude.",
        [("customer_id", "Cliente"), ("reason", "Motivo")],
    ),
    (
        "marketplace_sync",
        "Sincronizar o estoque com os marketplaces parceiros.",
        [("product", "Produto")],
    ),
    (
        "translate_description",
        "Traduzir a descrição de um produto para inglês ou espanhol.",
        [("product", "Produto"), ("language", "Idioma")],
    ),
    (
        "generate_product_description",
        "Escrever uma descrição de venda para um produto.",
        [("product", "Produto")],
    ),
    (
        "image_upload",
        "Enviar uma foto nova para a página de um produto.",
        [("product", "Produto"), ("url", "Endereço da imagem")],
    ),
    (
        "customer_nps",
        "A nota NPS de satisfação dos clientes em um período.",
        [("period", "Período")],
    ),
    (
        "delivery_sla",
        "O prazo médio de entrega por transportadora e região.",
        [("region", "Região")],
    ),
    (
        "carrier_claim",
        "Abrir uma reclamação com a transportadora por extravio ou avaria.",
        [("order_id", "Número do pedido"), ("problem", "Problema")],
    ),
    (
        "currency_convert",
        "Converter um valor em reais para dólares ou euros.",
        [("amount", "Valor"), ("currency", "Moeda")],
    ),
]


def _answer(name: str, args: dict[str, Any]) -> str:
    key = str(args.get("product", "")).strip().lower()
    if name == "track_order":
        order = ORDERS.get(str(args.get("order_id", "")).strip().lstrip("#"))
        if order is None:
            raise ToolError(f"pedido {args.get('order_id')!r} não encontrado; exemplos: 5001, 5002")
        return (
            f"pedido {args['order_id']}: {order['status']}, {order['carrier']} "
            f"{order['code']}, chega em {order['eta']}"
        )
    if name == "check_stock":
        if key not in STOCK:
            raise ToolError(f"produto {key!r} não existe; produtos: {', '.join(STOCK)}")
        return f"{key}: {STOCK[key]} unidades em estoque"
    if name == "product_price":
        if key not in PRICES:
            raise ToolError(f"produto {key!r} não existe; produtos: {', '.join(PRICES)}")
        return f"{key}: R$ {PRICES[key]:.2f}"
    if name == "apply_coupon":
        code = str(args.get("code", "")).upper()
        if code not in COUPONS:
            raise ToolError(f"cupom {code!r} inválido")
        amount = float(str(args.get("amount", "0")).replace(",", "."))
        return f"com {code}: R$ {amount * (1 - COUPONS[code] / 100):.2f}"
    if name == "calculate_shipping":
        return f"frete para {args.get('cep')}: R$ 24.90, 5 dias úteis"
    return f"{name}: feito ({', '.join(f'{k}={v}' for k, v in args.items())})"


def _tool(name: str, description: str, params: list[tuple[str, str]]) -> Tool:
    fields: dict[str, Any] = {p: (str, Field(description=d)) for p, d in params}
    model = create_model(f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields)

    def run(**kwargs: Any) -> str:
        return _answer(name, kwargs)

    return Tool(name=name, description=description, func=run, args_model=model, tags=("shop",))


TOOLS: list[Tool] = [_tool(*row) for row in CATALOG]
