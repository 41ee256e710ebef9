#!/bin/bash
cd /app
{
  echo "country,customers,revenue"
  sqlite3 -separator , shop.db "
    SELECT c.country, COUNT(DISTINCT c.id),
           printf('%d.%02d', SUM(o.amount_cents) / 100, SUM(o.amount_cents) % 100)
    FROM orders o JOIN customers c ON c.id = o.customer_id
    WHERE o.status = 'paid'
    GROUP BY c.country
    ORDER BY SUM(o.amount_cents) DESC, c.country ASC;"
} > report.csv
